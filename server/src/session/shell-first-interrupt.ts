/**
 * Interrupting a pwsh call without ending pwsh (issue 22). pwsh runs its native programs in
 * its own process group, so a terminal's Ctrl-C reaches the program and pwsh at once. The
 * program dies in microseconds; pwsh's break handler (`ConsoleHost.HandleBreak`) first spins
 * up a thread, which on a loaded machine takes long enough for the pipeline to run on (a
 * `"after"` statement printed) and finish, and a stop that lands on a finished pipeline
 * throws `ObjectDisposedException` on that thread and ends pwsh (SIGABRT). So pwsh gets the
 * SIGINT alone: its stop is under way while the program still holds the pipeline, and pwsh
 * ends the program itself. A program still running after a grace (pwsh ignored the break,
 * or started the program just after it) gets its own SIGINT, once, as from a terminal.
 */
import { readlink } from 'node:fs/promises';
import { descendants, readStat } from '../pty/proc-probe.ts';

/** Spacing of the looks at the shell's programs. */
const LOOK_STEP_MS = 10;
/**
 * How long pwsh has to stop its pipeline (and the program in it) before the program is
 * signalled itself: pwsh's break thread starts within tens of ms even with both cores busy.
 */
const NATIVE_GRACE_MS = 250;
/**
 * How long programs are watched for after the SIGINT: a program pwsh was starting when the
 * break came may appear a while later, untouched by the stop (seen under load: `sleep 30`
 * started 2 ms after the interrupt ran to the deadline).
 */
const FOLLOW_LIMIT_MS = 2000;

/**
 * SIGINT to the shell process alone; then, while `callRuns()`, to each program of its group
 * still running after the grace. Resolves whether the shell was signalled.
 */
export function interruptShellFirst(
  shellPid: number,
  group: number,
  callRuns: () => boolean,
): boolean {
  try {
    process.kill(shellPid, 'SIGINT');
  } catch {
    return false;
  }
  void followPrograms(shellPid, group, callRuns);
  return true;
}

async function followPrograms(shellPid: number, group: number, callRuns: () => boolean) {
  const sentAt = Date.now();
  const signalled = new Set<number>();
  while (callRuns() && Date.now() - sentAt < FOLLOW_LIMIT_MS) {
    await pause();
    if (Date.now() - sentAt < NATIVE_GRACE_MS) continue;
    for (const pid of await programsOf(shellPid, group)) {
      if (signalled.has(pid) || !callRuns()) continue;
      signalled.add(pid);
      try {
        process.kill(pid, 'SIGINT');
      } catch {
        // Gone already: nothing to interrupt.
      }
    }
  }
}

/**
 * The shell's descendants in its own group that run a program of their own: a child still
 * running the shell's image has not reached its program yet, and a SIGINT there is lost.
 */
async function programsOf(shellPid: number, group: number): Promise<number[]> {
  const shellImage = await readlink(`/proc/${shellPid}/exe`).catch(() => null);
  if (shellImage === null) return [];
  const programs: number[] = [];
  for (const pid of descendants(shellPid)) {
    if (pid === shellPid) continue;
    const stat = await readStat(pid);
    if (stat?.pgrp !== group) continue;
    const image = await readlink(`/proc/${pid}/exe`).catch(() => null);
    if (image !== null && image !== shellImage) programs.push(pid);
  }
  return programs;
}

function pause(): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, LOOK_STEP_MS));
}
