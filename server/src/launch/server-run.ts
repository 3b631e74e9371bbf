/**
 * A server's run, as the things it leaves on the host are named (cgroups, spare file
 * systems): its pid and when that process started. The pid alone does not tell a run: with
 * 32,768 pids a busy host gives a dead server's pid to another process within seconds.
 */
import { startTimeOf } from '../pty/proc-probe.ts';

/** `<pid>.<start time>`; the pid alone where the start cannot be read. */
export function runOf(pid: number): string {
  const started = startTimeOf(pid);
  return started === null ? String(pid) : `${pid}.${started}`;
}

/**
 * The run is alive: its pid is, and it is the same process (`started`; an older name without
 * it is told by the pid alone). A process whose start cannot be read (another user's, under
 * `hidepid`) counts as alive: unreadable is not gone.
 */
export function runAlive(pid: number, started: string | undefined): boolean {
  const now = started === undefined ? null : startTimeOf(pid);
  return now === null ? processAlive(pid) : now === started;
}

function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
