/**
 * A person at the controls replaced the shell's program (`exec bash`, `exec python3`). Left as
 * it was, the agent's next call line went to a shell without the integration, or to the
 * program, and nothing ended it before its deadline. Before the agent has the shell again, a
 * fresh shell of the dialect is given the integration once it reads its terminal (its start-up
 * files may run a while); any other program, or a fresh shell that never took it, is the
 * program that holds the terminal, and the agent's next call is typed to it as input.
 */
import { shellReadsTerminal } from '../pty/terminal-wait.ts';
import type { CallLine } from './call-line.ts';
import type { ShellImage } from './shell-image.ts';
import type { ShellProcess } from './shell-process.ts';
import type { ShellStatus } from './shell-status.ts';

/** How long a fresh shell may take to read its terminal, and then to take the integration
 *  (tens of ms each; seconds for a slow `.bashrc` on a loaded machine). */
const FRESH_SHELL_LIMIT_MS = 10_000;
/** How long a hand-back waits for the shell to take up the person's last line (see
 *  personLineTaken): ms for a line it reads at once, seconds on a loaded machine. */
const PERSON_LINE_LIMIT_MS = 5000;
/** Spacing of the looks at the shell. */
const LOOK_MS = 20;

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

/**
 * A person who lets go as soon as they entered a line (`exec bash`) may leave it unread: what
 * the hand-back finds must be what follows it, or the agent's next call line goes to a bash
 * without the integration and hangs to its deadline. Resolves once the shell showed a prompt
 * since the line (`entered`: the prompts shown then), a job of its holds the terminal, or it
 * reads its terminal itself (a continuation line, a `read`, an exec'd shell's prompt); a
 * reader the line woke is running, not reading.
 */
export async function personLineTaken(
  { pty, status, calls }: Omit<PersonExecParts, 'image'>,
  entered: number,
): Promise<void> {
  await lookUntil(status, PERSON_LINE_LIMIT_MS, async () => {
    if (calls.promptsShown !== entered) return true;
    const stat = pty.stat();
    return stat === null || stat.tpgid !== stat.pgrp || shellReadsTerminal(stat, status.ttyPath);
  });
}

/** Resolves once the shell process itself waits on its terminal (false: not within limit). */
function readingTerminal({ pty, status }: PersonExecParts): Promise<boolean> {
  return lookUntil(status, FRESH_SHELL_LIMIT_MS, () =>
    shellReadsTerminal(pty.stat(), status.ttyPath),
  );
}

/** Looks every LOOK_MS until `done()`: false when the shell ended or `limitMs` passed first. */
async function lookUntil(
  status: ShellStatus,
  limitMs: number,
  done: () => Promise<boolean>,
): Promise<boolean> {
  const giveUpAt = Date.now() + limitMs;
  while (status.alive && Date.now() < giveUpAt) {
    if (await done()) return true;
    await new Promise((resolve) => setTimeout(resolve, LOOK_MS));
  }
  return false;
}
