/**
 * Whether what a person types now is a hidden answer (a password): it then stays out of the
 * agent's "a human used this shell" line, the stored calls and the recording (issue 13).
 *
 * The terminal tells most of it: `read -s`, `sudo`, `ssh`, `passwd` and `getpass()` read a
 * line with the kernel's echo off (canonical mode, no echo). While a person holds the
 * controls jumpseat keeps the echo on for them (agents' shells run with it off), so a line
 * read with echo off is one a program hid. Programs that read raw keys and echo by themselves
 * (pwsh's `Read-Host -AsSecureString` echoes `*`) look like any line editor to the kernel;
 * there the cursor's line decides: a secret prompt (`Password: `) or a run of `*` after a
 * colon, with nothing else typed after it. Erring on the side of hiding is deliberate.
 */
import type { LineMode } from '../pty/terminal-mode.ts';

/** A prompt for something secret: a word of these, a colon or question mark, then stars. */
const SECRET_PROMPT_AT_CURSOR =
  /\b(password|passphrase|passcode|pin|secret|token|credentials?)\b[^\n]*[:?]\s*\**$/i;
/** What a program that masks input shows: stars after a prompt's colon, or stars alone. */
const MASKED_ANSWER_AT_CURSOR = /(^|[:?]\s*)\*+$/;

/**
 * `typedLine` is what the person typed visibly on this line so far: when the cursor's line
 * ends with it, they are typing a command of their own (`read -s -p 'Secret? '`), and the
 * words on it are theirs, not a program's prompt.
 */
export function isHiddenInput(
  mode: LineMode | undefined,
  cursorLine: string,
  typedLine: string,
): boolean {
  if (mode === undefined) return false;
  if (mode.canonical) return !mode.echo;
  const line = cursorLine.trimEnd();
  if (typedLine.trim() !== '' && line.endsWith(typedLine.trimEnd())) return false;
  return SECRET_PROMPT_AT_CURSOR.test(line) || MASKED_ANSWER_AT_CURSOR.test(line);
}
