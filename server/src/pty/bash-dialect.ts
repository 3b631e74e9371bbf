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

/** The PROMPT_COMMAND element the integration's prompt hook lives in (see the script). */
const HOOK_INDEX = 77;

/** The prefix of every name the integration defines in a shell: random per shell. */
function namesOf(context: DialectContext): string {
  return `__js${context.tag}`;
}

/**
 * The integration. What the command can do to the shell, and what holds against it:
 * - **Names.** Every function and variable is named `__js<tag>_…`, the tag random per shell,
 *   so no command reaches one by accident (`readonly`, `unset`, `declare -i`); the shell
 *   nonce is in no prompt string and no environment (bash's /proc/<pid>/environ would keep
 *   it after an unset). A command that goes looking can find it in the shell's memory (bash
 *   keeps nothing from the code it runs): what it then forges is only its own call's end.
 * - **Three ways a call's end is learnt**, so that no one change to the shell hides it:
 *   `post` prints the end mark to /dev/tty (immune to `exec >file`, `exec 2>&-`); the prompt
 *   string carries the call's nonce and status too (bash prints it itself: no function or
 *   builtin a command redefines is involved), so a hijacked or interrupted `post` still
 *   ends the call; and when no prompt reaches the terminal (stderr redirected, a read-only
 *   PS1 without marks) the engine sees the shell itself waiting to read its terminal, and a
 *   read-only PS1 without marks makes the prompt hook print a mark of its own. The hook's
 *   own redirection cannot fail (a failing one ends a POSIX-mode shell under `set -e`).
 * - **Prompt frameworks** rewrite PS1 from PROMPT_COMMAND. The hook is element
 *   ${HOOK_INDEX} of the PROMPT_COMMAND array (bash 5.1+): `PROMPT_COMMAND='…'` sets element
 *   0 and keeps it, and it runs after the framework's, putting the marks back around
 *   whatever PS1 became; post puts the hook back if the array was emptied.
 * - **set -e, -u, ERR traps.** pre and post run as `f || x=`, where errexit and the ERR
 *   trap do not apply to anything in them; every expansion has a default. The command runs
 *   as `! eval …`: errexit does not end the interactive shell on a failing command (a
 *   terminal would close), and PIPESTATUS keeps the exact status. Plain `eval`, a special
 *   builtin: through `builtin eval` bash applies errexit whatever the `!` (a function named
 *   `eval`, like one named `builtin`, is removed by pre and post).
 * - **set -x, DEBUG and RETURN traps.** pre and post switch xtrace off inside `{ …; }
 *   2>/dev/null` and the command switches it back on first; PS4 gets an invisible first
 *   character for the command, so the trace shows one `+` as at a terminal, not eval's two.
 *   A DEBUG or RETURN trap a command sets is moved behind a dispatcher that skips the
 *   integration's own steps, so it fires for the command's commands only.
 * - **Hijacks.** Names are called with a leading backslash (no alias) and through `builtin`
 *   (no function named like a builtin); a function named `builtin` itself is removed, and
 *   builtins the integration needs are enabled again, when the engine re-sources this file
 *   after a call line failed. Attributes put on the integration's variables (`readonly`,
 *   `-i`) make pre print the broken mark: the engine resets the shell.
 * - **The terminal.** Lines the engine types end in LF, which ends a line whatever `stty`
 *   did to CR (`-icrnl`, `igncr`, `raw`); marks are upper-case hex, digits and `;`, so
 *   `olcuc` cannot change them.
 * - **Once only.** The call's nonce is the first line of the command file, and pre empties
 *   the file once read, so the engine can tell whether a call line that printed no start
 *   mark ran the command (never run it twice) or never got that far (safe to retry).
 * - the command is added to history with `history -s`; the wrapper line starts with a
 *   space and HISTCONTROL keeps ignorespace, so the wrapper itself is never recorded;
 * - the line starts with an assignment: after a parse error at end of input inside eval
 *   (`echo 'unterminated`), interactive bash misparses a `{` that opens the next line.
 */
function integrationScript(context: DialectContext): string {
  const T = namesOf(context);
  const mark = (event: string, data: string) =>
    `builtin printf '\\e]${MARK_IDENT};%s;${event};%s\\a' "$${T}_n" ${data} >/dev/tty`;
  // Inlined where used: a function calling another would fail under a low FUNCNEST.
  const restoreMarks = `if [[ ! -v PS1 || \${PS1@a} != *r* ]] && [[ \${PS1-} != "$${T}_p1"*"$${T}_p2" ]]; then
    PS1=\${PS1-}
    PS1=$${T}_p1\${PS1//"$${T}_p1"/}
    PS1=\${PS1//"$${T}_p2"/}$${T}_p2
  fi`;
  // The call line saved `trap -p` (inside a function bash shows no DEBUG or RETURN trap).
  const moveTrap = (
    signal: string,
    dispatcher: string,
    action: string,
  ) => `IFS= builtin read -r -d '' ${T}_l <"\${${T}_t}${signal}" || ${T}_y=
  ${T}_l=\${${T}_l%$'\\n'}
  if [[ $${T}_l == "trap -- "*" ${signal}" && $${T}_l != "trap -- '${dispatcher}' ${signal}" && $${T}_l != "trap -- - ${signal}" ]]; then
    ${T}_l=\${${T}_l#trap -- }
    builtin eval "${action}=\${${T}_l% ${signal}}"
    builtin trap -- ${dispatcher} ${signal}
  fi`;
  return `# jumpseat shell integration for bash; sourced at start, and again if a command broke it.
\\unset -f builtin eval 2>/dev/null
builtin enable builtin printf read history set eval trap return unset enable bind 2>/dev/null
${T}_n=${context.nonce}
${T}_f=${shellQuote(context.commandFile)}
${T}_t=${shellQuote(`${context.commandFile}.trap-`)}
${T}_a=$'\\e]${MARK_IDENT};'$${T}_n';A;'
${T}_z=$'\\a'
${T}_b=$'\\e]${MARK_IDENT};'$${T}_n$';B;\\a'
${T}_p1='\\[\${${T}_a}\${${T}_k-};\${${T}_s-};$?\${${T}_z}\\]'
${T}_p2='\\[\${${T}_b}\\]'
${T}_4=$'\\001'
${T}_k=
${T}_s=
${T}_c=
${T}_x=
${T}_hook='{ ${T}_h; } 2>/dev/null'
builtin bind 'set enable-bracketed-paste off' 2>/dev/null
HISTCONTROL=\${HISTCONTROL:-ignorespace}
[[ -n \${${T}_ready-} ]] || { stty -echo 2>/dev/null; PS1='\\w\\$ '; ${T}_ready=1; }
${T}_h() {
  ${T}_q=$?
  ${restoreMarks}
  if [[ -v PS1 && \${PS1@a} == *r* && \${PS1-} != *"$${T}_p2" ]]; then
    ${mark('H', `"$${T}_k;$${T}_s;$${T}_q"`)}
  fi
}
${T}_d() {
  [[ \${FUNCNAME[1]-} == ${T}_* || \${BASH_COMMAND-} == *${T}_* ]] && builtin return 0
  builtin eval -- "\${${T}_dbg-}"
}
${T}_r() {
  [[ \${FUNCNAME[1]-} == ${T}_* ]] && builtin return 0
  builtin eval -- "\${${T}_ret-}"
}
${T}_pre() {
  \\unset -f builtin eval
  ${T}_x=\${-//[^x]/}
  builtin set +x
  if [[ -n \${${T}_k@a}\${${T}_c@a}\${${T}_s@a}\${${T}_x@a}\${${T}_n@a}\${${T}_f@a} ]]; then
    ${mark('X', '""')}
    builtin return 0
  fi
  {
    IFS= builtin read -r ${T}_k || ${T}_k=
    IFS= builtin read -r -d '' ${T}_c || ${T}_y=
  } <"$${T}_f"
  [[ -n $${T}_k ]] || builtin return 0
  # The start mark before the file is emptied: a mark that cannot be printed (printf
  # disabled) leaves the file unread, so the engine knows the command did not run.
  if ! ${mark('S', `"$${T}_k"`)}; then
    ${T}_c=
    builtin return 0
  fi
  >|"$${T}_f"
  [[ :\${SHELLOPTS-}: == *:history:* ]] && builtin history -s -- "$${T}_c"
  if [[ ! -v PS4 || \${PS4@a} != *r* ]]; then
    ${T}_4u=\${PS4-}
    ${T}_4s=\${PS4+set}
    PS4=$${T}_4\${PS4-+ }
    ${T}_4m=$PS4
  fi
  [[ -n $${T}_x ]] && ${T}_c="{ builtin set -x; } 2>/dev/null;$${T}_c"
}
${T}_post() {
  \\unset -f builtin eval
  ${T}_x=\${-//[^x]/}
  builtin set +x
  ${T}_c=
  case :\${HISTCONTROL-}: in
    *:ignorespace:* | *:ignoreboth:*) ;;
    *) [[ -v HISTCONTROL && \${HISTCONTROL@a} == *r* ]] ||
      HISTCONTROL=\${HISTCONTROL:+$HISTCONTROL:}ignorespace ;;
  esac
  if [[ \${PS4-} == "\${${T}_4m-}" && \${PS4@a} != *r* ]]; then
    if [[ -n \${${T}_4s-} ]]; then PS4=\${${T}_4u-}; else builtin unset PS4; fi
  fi
  if [[ \${PROMPT_COMMAND[${HOOK_INDEX}]-} != "$${T}_hook" ]] && [[ ! -v PROMPT_COMMAND || \${PROMPT_COMMAND@a} != *r* ]]; then
    PROMPT_COMMAND[${HOOK_INDEX}]=$${T}_hook
  fi
  ${restoreMarks}
  ${moveTrap('DEBUG', `${T}_d`, `${T}_dbg`)}
  ${moveTrap('RETURN', `${T}_r`, `${T}_ret`)}
  ${mark('E', `"$${T}_k;$${T}_s"`)}
  [[ -n $${T}_x ]] && builtin set -x
  builtin return 0
}
PROMPT_COMMAND[${HOOK_INDEX}]=$${T}_hook
${mark('R', '"$$"')}
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
    for (const signal of ['DEBUG', 'RETURN']) {
      await writeFile(`${context.commandFile}.trap-${signal}`, '', { mode: 0o600 });
    }
    return ` . ${shellQuote(script)}\n`;
  },
  // readline for a person: history, arrow keys, Tab. A leading space keeps them out of history.
  // `stty` runs as a job of the shell's own, so bash records the terminal's modes with echo
  // as wanted: it puts those back when a job ends by a signal (a Ctrl+C), and readline echoes
  // typed keys only when the terminal it finds echoes.
  humanEditing: { on: ' set -o emacs; stty echo\n', off: ' set +o emacs; stty -echo\n' },
  // Short on purpose: fewer bytes through the terminal (and through readline, should a human
  // have switched it on), so the per-call nonce travels in the command file instead. LF, not
  // CR, ends it: a command may have switched off the terminal's CR-to-LF (`stty -icrnl`).
  callLine(context: DialectContext): string {
    const T = namesOf(context);
    return (
      ` ${T}_s=I;{ \\${T}_pre||${T}_y=;} 2>/dev/null;! \\eval -- "\${${T}_c-}";` +
      `{ ${T}_s=\${PIPESTATUS[0]};\\builtin trap -p DEBUG >|"$${T}_t"DEBUG;` +
      `\\builtin trap -p RETURN >|"$${T}_t"RETURN;\\${T}_post||${T}_y=;} 2>/dev/null\n`
    );
  },
  // bash never asks where the cursor is, and with echo off its `read` prints nothing typed.
  answersCursorQueries: false,
  hostEchoesInput: false,
};

function shellQuote(text: string): string {
  return `'${text.replaceAll("'", `'\\''`)}'`;
}
