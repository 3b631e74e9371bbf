/**
 * Who holds a shell's terminal, judged from the shell's stat when an end mark is parsed: a
 * call ends only with the shell itself the terminal's foreground process group again (issue
 * 21). A command that read its nonces can print a well-formed end mark, but while a job of its
 * own (started with job control, as an interactive bash does) still runs in the foreground,
 * the terminal's group is that job's, not the shell's. The stat is read at once, in place
 * (held-stat.ts).
 */
import type { ProcStat } from './proc-probe.ts';

/** True when a process group other than the shell's own holds its terminal now. */
export function jobHoldsTerminal(shell: ProcStat | null): boolean {
  // Gone: its exit ends the call anyway.
  if (shell === null) return false;
  return shell.tpgid > 0 && shell.tpgid !== shell.pgrp;
}
