/**
 * Who holds a shell's terminal, read synchronously when an end mark is parsed: a call ends
 * only with the shell itself the terminal's foreground process group again (issue 21). A
 * command that read its nonces can print a well-formed end mark, but while a job of its own
 * (started with job control, as an interactive bash does) still runs in the foreground, the
 * terminal's group is that job's, not the shell's. One small read of /proc, about 20 µs.
 */
import { readFileSync } from 'node:fs';
import { parseStat } from './proc-probe.ts';

/** True when a process group other than the shell's own holds its terminal now. */
export function jobHoldsTerminal(shellPid: number): boolean {
  let text: string;
  try {
    text = readFileSync(`/proc/${shellPid}/stat`, 'latin1');
  } catch {
    return false; // gone: its exit ends the call anyway
  }
  const { pgrp, tpgid } = parseStat(shellPid, text);
  return tpgid > 0 && tpgid !== pgrp;
}
