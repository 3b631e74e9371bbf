/**
 * Interrupting an agent's call (the page's Interrupt button) so that the interrupt is never
 * lost in the moments a command starts. A call whose command has not started yet (its line
 * typed, the start mark not seen) holds the interrupt until the start mark (see Shell): sent
 * earlier, the SIGINT would hit the shell at its prompt and the command would run anyway.
 * Better still, such a call's command is cancelled before the shell reads it
 * (`ShellFiles.cancelCommand`), so it never runs. After the start, two more moments lose a SIGINT,
 * and `interruptCommand` covers both.
 */
import { readStat } from '../pty/proc-probe.ts';
import { interruptShellFirst } from './shell-first-interrupt.ts';
import { jobLookPause, signalGroup, signalJob } from './starting-jobs.ts';

/**
 * How long a shell interrupted while its command was starting is watched for the job that
 * takes the terminal: bash forks and hands the terminal over within milliseconds, so a
 * second is ample even on a loaded machine; past it the call runs on as at a terminal.
 */
const FOLLOW_LIMIT_MS = 1000;

/**
 * SIGINT to the terminal's foreground process group, for the call in flight, at moments
 * when it cannot be lost. Resolves whether it was sent.
 * - A job still starting is a copy of the shell that has its own group and the terminal but
 *   not yet its program: bash's own handler takes the SIGINT there and the program it then
 *   runs never knows. Such a job is signalled once it runs its program.
 * - When the group is the shell's own, its command may be starting a job right now: bash,
 *   waiting for a child that already has a group of its own but not yet the terminal,
 *   ignores a SIGINT the child never got. So while `callRuns()` holds, the terminal is looked
 *   at again, and a job that takes it is interrupted too, once. `shellSignalled` is told
 *   when the shell itself got the signal.
 * - A shell without job control (`ownGroup` is `shell-first`: pwsh) runs its programs in its
 *   own group, and is signalled before them (see shell-first-interrupt.ts).
 */
export async function interruptCommand(
  shellPid: number,
  callRuns: () => boolean,
  shellSignalled: () => void,
  ownGroup: 'group' | 'shell-first' = 'group',
): Promise<boolean> {
  const stat = await readStat(shellPid);
  // The call may have ended while /proc was read: a SIGINT now would meet the next one.
  if (!stat || stat.tpgid <= 0 || !callRuns()) return false;
  if (stat.tpgid !== stat.pgrp) return signalJob(shellPid, stat.tpgid);
  shellSignalled();
  if (ownGroup === 'shell-first') return interruptShellFirst(shellPid, stat.pgrp, callRuns);
  if (!signalGroup(stat.tpgid)) return false;
  void followUp(shellPid, stat.pgrp, callRuns);
  return true;
}

async function followUp(shellPid: number, shellGroup: number, callRuns: () => boolean) {
  const until = Date.now() + FOLLOW_LIMIT_MS;
  while (callRuns() && Date.now() < until) {
    await jobLookPause();
    const stat = await readStat(shellPid);
    if (!stat) return;
    if (stat.tpgid > 0 && stat.tpgid !== shellGroup && callRuns()) {
      await signalJob(shellPid, stat.tpgid);
      return;
    }
  }
}
