/**
 * Looks at processes from the host, as a test must to know what a shell left running: pids a
 * sandboxed shell prints are its own namespace's, so tests find processes by their exact
 * command line (a test gives each of its sleepers a duration no other test uses).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { descendants, readStatNow } from '../../src/pty/proc-probe.ts';
import { waitsForInputNow } from '../../src/pty/terminal-wait.ts';

function read(path: string): string {
  try {
    return readFileSync(path, 'latin1');
  } catch {
    return '';
  }
}

/** Host pids of live (not zombie) processes whose argv is `argv` (the program by its base
 *  name: `/usr/bin/sleep 9` is `sleep 9`). */
export function processesRunning(...argv: string[]): number[] {
  const wanted = argv.join('\0');
  const found: number[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    const [program = '', ...rest] = read(`/proc/${name}/cmdline`).replace(/\0$/, '').split('\0');
    if ([program.slice(program.lastIndexOf('/') + 1), ...rest].join('\0') !== wanted) continue;
    if (/^\d+ \(.*\) [ZX] /.test(read(`/proc/${name}/stat`))) continue;
    found.push(Number(name));
  }
  return found;
}

/**
 * The shell waits at its prompt (asleep reading input) and runs no `program` below it: told
 * from the processes, not the screen, where a Ctrl-C that came as bash left its line editor
 * shows no `^C`, and one the terminal took late can leave bash at a prompt it did not redraw.
 */
export function shellAtPrompt(shellPid: number, program: string): boolean {
  if (readStatNow(shellPid)?.state !== 'S' || !waitsForInputNow(shellPid)) return false;
  return descendants(shellPid).every((pid) => read(`/proc/${pid}/comm`).trim() !== program);
}
