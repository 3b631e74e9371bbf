/**
 * A person's Ctrl-C that reaches the job it was meant for. Typed right after Enter, the
 * terminal's SIGINT can come while bash starts the line's job: the job has a group of its
 * own but not yet the terminal (the signal goes to bash alone, which waits on for the job),
 * or the terminal but not yet its program (the copy of bash takes the signal, and the
 * program runs on). At a real terminal a person presses Ctrl-C again; a test driving the
 * keys, or a person on a loaded machine, would see `sleep 600` run on after a `^C` (a bare
 * bash in a PTY lost about one such Ctrl-C in ten here: 13 of 100 quiet, 15 of 150 beside two
 * CPU hogs). So the copies of the shell that are starting as the key goes in are noted, and a
 * job of theirs that takes the terminal gets the SIGINT once it runs its program. The
 * terminal may take the key later than that (under load, milliseconds after the write): the
 * job then has its SIGINT from us first, and the key finds bash at its prompt, as a second
 * Ctrl-C would.
 */
import { readStatNow } from '../pty/proc-probe.ts';
import { waitsForInputNow } from '../pty/terminal-wait.ts';
import { jobLookPause, signalJob, startingCopiesNow } from './starting-jobs.ts';

/**
 * How long after the key a starting job is watched for taking the terminal: bash hands it
 * over within milliseconds, so a second is ample even on a loaded machine.
 */
const FOLLOW_LIMIT_MS = 1000;

/**
 * Writes keys that hold a Ctrl-C meant as an interrupt (the terminal's `isig` is on), and
 * carries the interrupt to a job the shell was starting as they went in. `quiet()`: nothing
 * was typed since, so a copy the shell forks a moment after the write still comes from the
 * line before the key (the terminal takes the key a moment after the write); false at once
 * when a line follows the Ctrl-C in the same keys, whose job must not get it.
 */
export function writeTypedInterrupt(
  shellPid: number,
  write: () => void,
  quiet: () => boolean,
): void {
  // Asleep at its prompt, the shell takes the key itself and starts nothing: what it starts
  // next (its prompt command's programs) is not what the key was for.
  if (asleepReading(shellPid)) {
    write();
    return;
  }
  const copies = new Set(startingCopiesNow(shellPid));
  write();
  void followStartingJobs(shellPid, copies, quiet);
}

/** Asleep reading input (woken by keys it is `R`, and may start a job yet). */
export function asleepReading(shellPid: number): boolean {
  return readStatNow(shellPid)?.state === 'S' && waitsForInputNow(shellPid);
}

/**
 * SIGINT to the job of a noted copy once it takes the terminal, within the limit, once. The
 * shell back asleep at its prompt ends the watch: a job it had just started in the background
 * (`sleep 300 &`) must not get the key when a person brings it back (`fg`).
 */
async function followStartingJobs(
  shellPid: number,
  copies: Set<number>,
  quiet: () => boolean,
): Promise<void> {
  const until = Date.now() + FOLLOW_LIMIT_MS;
  for (;;) {
    if (quiet()) for (const pid of startingCopiesNow(shellPid)) copies.add(pid);
    const shell = readStatNow(shellPid);
    if (!shell || shell.tpgid <= 0) return;
    if (shell.tpgid !== shell.pgrp) {
      // A job holds the terminal: one of the copies' (the key may be lost to it), or another.
      const group = shell.tpgid;
      if (quiet()) for (const pid of startingCopiesNow(shellPid, group)) copies.add(pid);
      if ([...copies].some((pid) => readStatNow(pid)?.pgrp === group)) {
        await signalJob(shellPid, group);
      }
      return;
    }
    if (Date.now() >= until || asleepReading(shellPid)) return;
    await jobLookPause();
  }
}
