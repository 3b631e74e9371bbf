/**
 * What a fixture shell is made to show so a screen snapshot holds nothing of one run: a
 * fixed prompt (`$ ` unless the `prompt` option says otherwise) and a cleared screen, set by
 * one call before the test's own, and again in a successor shell.
 */
import type { Dialect } from './client-types.ts';

/** The prompt fixture shells show by default: the same in every run, worker and server. */
export const FIXTURE_PROMPT = '$ ';

/** Clears the screen and the lines above it (xterm's ED 2 and ED 3), without terminfo. */
const CLEAR_SCREEN = '\\033[H\\033[2J\\033[3J';

function bashQuoted(text: string): string {
  return `'${text.replaceAll("'", "'\\''")}'`;
}

function pwshQuoted(text: string): string {
  return `'${text.replaceAll("'", "''")}'`;
}

/** The call that sets `prompt` and clears the screen in a shell of `dialect`. */
export function promptCommand(dialect: Dialect, prompt: string): string {
  if (dialect === 'bash') {
    return `PS1=${bashQuoted(prompt)}; PS2='> '; printf '${CLEAR_SCREEN}'`;
  }
  return `function global:prompt { ${pwshQuoted(prompt)} }; [Console]::Write("\`e[H\`e[2J\`e[3J")`;
}
