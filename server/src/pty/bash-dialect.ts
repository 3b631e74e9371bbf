/**
 * bash: `bash --noprofile --norc --noediting -i` with a small integration sourced at start.
 * A call's command is written to a private file and run by a fixed wrapper line, so no byte
 * of the command passes through a line editor (tabs, ESC, ^C, ^U stay literal) and the
 * wrapper never reaches history, xtrace output or the screen.
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { DialectContext, ShellDialect, ShellLaunch } from './dialect.ts';
import { MARK_IDENT } from './marks.ts';

/**
 * The integration. Notes on its choices:
 * - the shell nonce is written here (a mode-600 file in a mode-700 directory), never put in
 *   the environment: bash's /proc/<pid>/environ would keep showing it after an unset;
 * - sourcing it again restores everything, so the engine can repair a shell whose
 *   functions or variables a command removed;
 * - marks go to /dev/tty, so `exec >file` in a command cannot swallow them;
 * - `pre` and `post` run inside `{ …; } 2>/dev/null`, so `set -x` never traces them, and
 *   xtrace is switched off around them and back on only for the user's command;
 * - the command runs through `eval` at the top level (never inside a function: `declare`
 *   there would make variables local) as `! eval …`, so an ERR trap fires once for the
 *   failing command and not again for eval; PIPESTATUS keeps the exact status;
 * - names are called with a leading backslash and through `builtin`, so aliases and
 *   functions a command defines cannot hijack the wrapper;
 * - the command is added to history with `history -s`; the wrapper line starts with a
 *   space and HISTCONTROL keeps ignorespace, so the wrapper itself is never recorded;
 * - the call's nonce is the first line of the command file, not part of the typed line; `pre`
 *   empties the file once read, so the engine can tell whether a call line that printed no
 *   start mark ran the command (never run it twice) or never got that far (safe to retry);
 * - the line starts with a plain `:`: after a parse error at end of input inside eval
 *   (`echo 'unterminated`), interactive bash misparses a `{` that opens the next line;
 * - PS1 begins with an invisible mark carrying `$?` and ends with another; if a command
 *   replaces PS1, they come back. When Ctrl-C kills a job, bash drops the rest of the typed
 *   line (so `post` never runs): the first prompt mark is then how the call learns it ended,
 *   and with what status; the prompt text after it is not part of the output.
 */
function integrationScript(context: DialectContext): string {
  return `# jumpseat shell integration for bash; sourced at start, and again if a command broke it.
__jumpseat_n=${context.nonce}
__jumpseat_f=${shellQuote(context.commandFile)}
__jumpseat_ps='\\[\\e]${MARK_IDENT};'"$__jumpseat_n"';p;$?\\a\\]'
__jumpseat_pe='\\[\\e]${MARK_IDENT};'"$__jumpseat_n"';P;\\a\\]'
builtin bind 'set enable-bracketed-paste off' 2>/dev/null
stty -echo 2>/dev/null
HISTCONTROL=ignorespace
PS1=$__jumpseat_ps'\\w\\$ '$__jumpseat_pe
__jumpseat_mark() { builtin printf '\\e]${MARK_IDENT};%s;%s;%s\\a' "$__jumpseat_n" "$1" "$2" >/dev/tty; }
__jumpseat_pre() {
  __jumpseat_x=\${-//[^x]/}
  builtin set +x
  {
    IFS= builtin read -r __jumpseat_k
    IFS= builtin read -r -d '' __jumpseat_c
  } <"$__jumpseat_f"
  : >"$__jumpseat_f"
  [[ :\${SHELLOPTS-}: == *:history:* ]] && builtin history -s -- "$__jumpseat_c"
  [[ -n $__jumpseat_x ]] && __jumpseat_c="{ builtin set -x; } 2>/dev/null;$__jumpseat_c"
  __jumpseat_mark S "$__jumpseat_k"
  builtin return 0
}
__jumpseat_post() {
  __jumpseat_x=\${-//[^x]/}
  builtin set +x
  __jumpseat_c=
  case :\${HISTCONTROL-}: in
    *:ignorespace:* | *:ignoreboth:*) ;;
    *) HISTCONTROL=\${HISTCONTROL:+$HISTCONTROL:}ignorespace ;;
  esac
  [[ \${PS1-} == *"$__jumpseat_ps"* ]] || PS1=$__jumpseat_ps\${PS1-}
  [[ $PS1 == *"$__jumpseat_pe" ]] || PS1=$PS1$__jumpseat_pe
  __jumpseat_mark E "$__jumpseat_k;$1"
  [[ -n $__jumpseat_x ]] && builtin set -x
  builtin return 0
}
__jumpseat_mark R "$$"
`;
}

export const bashDialect: ShellDialect = {
  name: 'bash',
  launch(_context: DialectContext): ShellLaunch {
    return {
      file: 'bash',
      // --noediting: the call line reaches bash in one read instead of byte by byte through
      // readline (0.2 ms instead of 0.8 ms per call here), and no byte is ever interpreted by
      // a line editor. `set -o emacs` switches readline on at run time for a human at the
      // keyboard, and `set +o emacs` off again.
      args: ['--noprofile', '--norc', '--noediting', '-i'],
      env: { HISTCONTROL: 'ignorespace', HISTFILE: '' },
      leadsProcessGroup: true,
    };
  },
  async install(context: DialectContext): Promise<string> {
    const script = join(context.privateDir, 'integration.bash');
    await writeFile(script, integrationScript(context), { mode: 0o600 });
    return ` . ${shellQuote(script)}\r`;
  },
  // readline for a person: history, arrow keys, Tab. A leading space keeps them out of history.
  humanEditing: { on: ' set -o emacs\r', off: ' set +o emacs\r' },
  // Short on purpose: fewer bytes through the terminal (and through readline, should a human
  // have switched it on), so the per-call nonce travels in the command file instead.
  callLine:
    ' \\:;{ \\__jumpseat_pre;} 2>/dev/null;! \\builtin eval -- "$__jumpseat_c";' +
    '{ \\__jumpseat_post "${PIPESTATUS[0]}";} 2>/dev/null\r',
  // bash never asks where the cursor is, and with echo off its `read` prints nothing typed.
  answersCursorQueries: false,
  hostEchoesInput: false,
};

function shellQuote(text: string): string {
  return `'${text.replaceAll("'", `'\\''`)}'`;
}
