/**
 * A person at the controls replaced the shell's program (`exec bash`, `exec python3`). Left as
 * it was, the agent's next call line went to a shell without the integration, or to the
 * program, and nothing ended it before its deadline. Before the agent has the shell again, a
 * fresh shell of the dialect is given the integration once it reads its terminal (its start-up
 * files may run a while); any other program, or a fresh shell that never took it, is the
 * program that holds the terminal, and the agent's next call is typed to it as input.
 */
import { findWaitingReader } from '../pty/terminal-wait.ts';
import type { CallLine } from './call-line.ts';
import type { ShellImage } from './shell-image.ts';
import type { ShellProcess } from './shell-process.ts';
import type { ShellStatus } from './shell-status.ts';

/** How long a fresh shell may take to read its terminal, and then to take the integration
 *  (tens of ms each; seconds for a slow `.bashrc` on a loaded machine). */
const FRESH_SHELL_LIMIT_MS = 10_000;
/** Spacing of the looks for the fresh shell reading its terminal. */
const READING_LOOK_MS = 20;

/** What the hand-back found: the program as installed, the integration put in, or another. */
export type PersonExec = 'installed' | 'reinstalled' | 'other';

export interface PersonExecParts {
  readonly image: ShellImage;
  readonly pty: ShellProcess;
  readonly status: ShellStatus;
  readonly calls: CallLine;
}

export async function takePersonExec(parts: PersonExecParts): Promise<PersonExec> {
  const { image, pty, status, calls } = parts;
  const program = image.current();
  if (program !== 'fresh-shell') return program;
  if (!(await readingTerminal(parts)) || !status.alive) return 'other';
  await pty.quiet();
  const installed = await calls.runOwnLine(calls.installLine, FRESH_SHELL_LIMIT_MS);
  return installed ? 'reinstalled' : 'other';
}

/** Resolves once the shell process itself waits on its terminal (false: not within limit). */
async function readingTerminal({ pty, status }: PersonExecParts): Promise<boolean> {
  const giveUpAt = Date.now() + FRESH_SHELL_LIMIT_MS;
  while (status.alive && Date.now() < giveUpAt) {
    const reader = await findWaitingReader(pty.stat(), status.ttyPath);
    if (reader?.pid === pty.pid) return true;
    await new Promise((resolve) => setTimeout(resolve, READING_LOOK_MS));
  }
  return false;
}
