/**
 * The prompt of a person's own shell. Its workspace sits deep under the data directory
 * (`~/.local/share/jumpseat/workspaces/_people/<token id>`), so the dialects' default prompt
 * (bash's `\w\$ `) filled half a row; this prompt names the workspace `workspace` and shows
 * the rest of the path after it (`workspace/src$ `), and any other directory as it is.
 * It is set by one call when the shell first becomes ready, the way a person would set it.
 */
import type { Dialect } from '../../../shared/src/vocabulary.ts';

/** The name the prompt gives the shell's own workspace. */
export const PERSONAL_WORKSPACE_LABEL = 'workspace';

/** Clears the screen and the lines above it, so the first prompt shows the short form alone. */
const CLEAR_SCREEN_BASH = '\\033[H\\033[2J\\033[3J';
const CLEAR_SCREEN_PWSH = '`e[H`e[2J`e[3J';

/** The call that sets the short prompt in a person's new shell (it starts in its workspace). */
export function personalPromptCommand(dialect: Dialect): string {
  if (dialect === 'bash') {
    // The workspace is kept in a variable, not pasted into PS1: a quote or `$` in the
    // configured root would otherwise be read as part of the prompt's own syntax.
    return [
      // Kept out of the person's history (bash's integration records each call first).
      '[[ :$SHELLOPTS: != *:history:* ]] || history -d -1 2>/dev/null',
      'JUMPSEAT_WORKSPACE=$PWD',
      `PS1='\${PWD/#"$JUMPSEAT_WORKSPACE"/${PERSONAL_WORKSPACE_LABEL}}\\$ '`,
      `printf '${CLEAR_SCREEN_BASH}'`,
    ].join('; ');
  }
  return [
    '$global:JUMPSEAT_WORKSPACE = $PWD.Path',
    'function global:prompt { $p = $PWD.Path; $w = $global:JUMPSEAT_WORKSPACE; ' +
      `if ($p -eq $w -or $p.StartsWith("$w/")) { $p = '${PERSONAL_WORKSPACE_LABEL}' + $p.Substring($w.Length) }; ` +
      '"PS $p> " }',
    `[Console]::Write("${CLEAR_SCREEN_PWSH}")`,
  ].join('; ');
}
