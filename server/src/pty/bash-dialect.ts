/**
 * bash: `bash --noprofile --norc --noediting -i` with a small integration sourced at start.
 * A call's command is written to a private file and run by a fixed wrapper line, so no byte
 * of the command passes through a line editor (tabs, ESC, ^C, ^U stay literal) and the
 * wrapper never reaches history, xtrace output or the screen.
 */
import { join } from 'node:path';
import { dispatcherVariablesAsArrays, ownVariablesUnexported } from './bash-allexport.ts';
import {
  errexitAfterCommand,
  errexitBeforeCommand,
  errexitInstall,
  errTrapAction,
  errTrapAroundRun,
  errTrapMove,
  errTrapWatchStep,
  runFileSteps,
  runFileText,
} from './bash-errexit.ts';
import { bashPath } from './bash-executable.ts';
import { startsInteractiveBash } from './bash-fresh-shell.ts';
import { jobNoticesBeforeEnd, jobNoticesInstall, jobNoticesPrint } from './bash-job-notices.ts';
import {
  keepingLastArg,
  lastStatusAfterCall,
  lastStatusAtPrompt,
  lastStatusChoose,
  lastStatusInstall,
  lastStatusPosted,
  lastStatusTracedStep,
} from './bash-last-status.ts';
import { enableNeeded } from './bash-needed-builtins.ts';
import { quietInstall, quietNames, runUserAction } from './bash-quiet-traps.ts';
import { bashSingleQuote } from './bash-quote.ts';
import { rareStep, rareStepsInstall } from './bash-rare-steps.ts';
import {
  traceOptionsAfterCommand,
  traceOptionsAtPrompt,
  traceOptionsInstall,
  traceOptionsRead,
} from './bash-trace-options.ts';
import {
  trapCaptureRead,
  trapCaptureStep,
  trapSplit,
  trapsUnchanged,
} from './bash-trap-capture.ts';
import { INTEGRATION_FILE, variablesBack } from './bash-variables-back.ts';
import { writable, writableTerm } from './bash-writable.ts';
import {
  type DialectContext,
  type ShellDialect,
  type ShellLaunch,
  TAKEN_MARK_BYTES,
} from './dialect.ts';
import { MARK_IDENT } from './marks.ts';

/** The PROMPT_COMMAND element the integration's prompt hook lives in (see the script). */
const HOOK_INDEX = 77;

/**
 * Aliases named like reserved words (`alias '{'=…`) would rewrite the engine's own lines,
 * which are parsed after the command ran (the next call line, the prompt hook): post drops
 * them. They break the shell's own syntax for the user as much, so nothing of use is lost.
 */
const KEYWORD_ALIASES =
  "'!' '[[' ']]' '{' '}' case coproc do done elif else esac fi for function if in select then time until while";

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
 *   A command that does go looking and unsets the variables finds them back at the next
 *   step of ours (bash-variables-back.ts).
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
 * - **set -e, -u, ERR traps.** pre and post run as `f || x=`, and the call line's groups
 *   around them as `{ …; } || x=`, where errexit and the ERR trap do not apply to anything
 *   in them (a step a command's `enable -n trap` makes fail would end the shell under
 *   `set -e`); every expansion has a default. The command is
 *   `eval`ed by a sourced run file with errexit as the user set it, and the shell's ERR
 *   trap unwinds it where errexit would end the shell: see bash-errexit.ts. (A function
 *   named `eval`, like one named `builtin`, is removed by pre and post.)
 * - **set -x, DEBUG and RETURN traps.** pre and post switch xtrace off inside `{ …; }
 *   2>/dev/null` and the command switches it back on first; in a call that may trace, PS4
 *   gets an invisible first character for the command, so the trace shows one `+` as at a
 *   terminal, not eval's two (a PS4 the command sets itself shows once per level: `XXX`).
 *   A DEBUG or RETURN trap a command sets is moved behind a dispatcher that skips the
 *   integration's own steps, so it fires for the command's commands only. In a call with
 *   xtrace the dispatchers' own steps trace nowhere (bash-quiet-traps.ts).
 * - **Hijacks.** Names are called with a leading backslash (no alias) and through `builtin`
 *   (no function named like a builtin); a function named `builtin` itself is removed, and
 *   pre enables the builtins the integration needs again first thing (see enableNeeded). Attributes put on the integration's variables (`readonly`,
 *   `-i`) make pre print the broken mark: the engine resets the shell.
 * - **The terminal.** Lines the engine types end in LF, which ends a line whatever `stty`
 *   did to CR (`-icrnl`, `igncr`, `raw`); marks are upper-case hex, digits and `;`, so
 *   `olcuc` cannot change them.
 * - **Once only.** The call's nonce is the first line of the command file, and pre writes it
 *   to the taken file once read (the command file is the server's, read-only to the shell),
 *   so the engine can tell whether a call line that printed no start mark ran the command
 *   (never run it twice) or never got that far (safe to retry). post adds the status there
 *   before it prints the end mark: a shell seen reading its terminal whose file says this
 *   call ended is at its prompt with the end mark still on its way through the terminal (a
 *   busy machine moves it late), never a command waiting for input. Both writes go over the
 *   file in place, padded (see TAKEN_MARK_BYTES): a truncation would wait for the disk.
 * - **Traps seen after the command.** The call line writes `trap -p` of DEBUG, ERR and RETURN
 *   (bash shows them only at the top level) into one file, ended by a NUL, over the file in
 *   place: one open, and no truncation (a truncation of an ext4 file costs more than the rest
 *   of the call line); see bash-trap-capture.ts. It enables printf first: a command's
 *   `enable -n printf` lasts until its call ends anyway.
 * - the command is added to history with `history -s`; the wrapper line starts with a
 *   space and HISTCONTROL keeps ignorespace, so the wrapper itself is never recorded;
 * - the line starts with an assignment: after a parse error at end of input inside eval
 *   (`echo 'unterminated`), interactive bash misparses a `{` that opens the next line.
 */
function integrationScript(context: DialectContext, runFile: string): string {
  const T = namesOf(context);
  const q = quietNames(T);
  const ownVariablesBack = variablesBack(T, join(context.privateDir, INTEGRATION_FILE));
  const markText = (event: string, data: string) =>
    `builtin printf '\\e]${MARK_IDENT};%s;${event};%s\\a' "$${T}_n" ${data}`;
  const mark = (event: string, data: string) => `${markText(event, data)} >/dev/tty`;
  // Inlined where used: a function calling another would fail under a low FUNCNEST.
  // A variable of the user's is set only where `writable` says it may be, and through
  // `printf -v`: bash abandons the whole line (the call's end included) after an assignment
  // to a read-only variable, and a read-only one declared with no value is unset for `-v`.
  const restoreMarks = `if [[ \${PS1-} != "$${T}_p1"*"$${T}_p2" && ${writableTerm('PS1')} ]]; then
    ${T}_pp=\${PS1-} ${T}_pp=$${T}_p1\${${T}_pp//"$${T}_p1"/}
    builtin printf -v PS1 %s "\${${T}_pp//"$${T}_p2"/}$${T}_p2" || ${T}_y=
  fi`;
  const rare = { keywordAliases: KEYWORD_ALIASES, hookIndex: HOOK_INDEX, restoreMarks };
  // The call line saved `trap -p` (inside a function bash shows no DEBUG or RETURN trap; in
  // POSIX mode it shows an unset one as `trap -- - SIG`, which is no trap).
  const moveTrap = (
    signal: string,
    dispatcher: string,
    action: string,
  ) => `${T}_l=\${${T}_l${signal}%$'\\n'}
  [[ $${T}_l != "trap -- - ${signal}" ]] || ${T}_l=
  if [[ $${T}_l == "trap -- "*" ${signal}" && $${T}_l != "trap -- '${dispatcher}' ${signal}" ]]; then
    ${T}_l=\${${T}_l#trap -- }
    \\builtin eval "${action}=\${${T}_l% ${signal}}"
    \\builtin trap -- "${dispatcher}" ${signal}
  fi`;
  // post's trap moves, as text it `eval`s only when a trap is not as the last call left it
  // (bash copies a function's whole body at each call). Every builtin as `\builtin`; post
  // has removed aliases named like reserved words by then.
  const trapMoves = [
    trapSplit(T),
    moveTrap('DEBUG', `$${q.debugAction}`, `${T}_dbg`),
    `[[ -n $${T}_l ]] || ${T}_dbg=`,
    moveTrap('RETURN', `$${q.returnAction}`, `${T}_ret`),
    `[[ -n $${T}_l ]] || ${T}_ret=`,
    errTrapMove(T, `${T}_lERR`),
  ].join('\n');
  return `# jumpseat shell integration for bash; sourced at start, and again if a command broke it.
\\unset -f builtin eval 2>/dev/null
\\builtin unalias -- ${KEYWORD_ALIASES} 2>/dev/null
builtin enable builtin printf read mapfile history set eval trap return unset enable bind 2>/dev/null
${T}_n=${context.nonce}
${T}_f=${bashSingleQuote(context.commandFile)}
${T}_t=${bashSingleQuote(join(context.shellDir, 'traps'))}
${T}_g=${bashSingleQuote(context.takenFile)}
${T}_rf=${bashSingleQuote(runFile)}
${T}_a=$'\\e]${MARK_IDENT};'$${T}_n';A;'
${T}_z=$'\\a'
${T}_b=$'\\e]${MARK_IDENT};'$${T}_n$';B;\\a'
${T}_p1='\\[\${${T}_a}\${${T}_k-};\${${T}_s-};$?\${${T}_z}\\]'
${T}_p2='\\[\${${T}_b}\\]'
${T}_4=$'\\001'
${T}_k=
${T}_s=
${T}_c=
${T}_o=
${T}_ca=()
${T}_la=()
${T}_e0=()
${dispatcherVariablesAsArrays(T)}
# pre's xtrace step before the command, and the last status again after it; the DEBUG
# dispatcher knows them as ours by their text (arrays of ours), and the run file's verbose
# echo leaves them out.
${T}_xp=${bashSingleQuote(`\\builtin set -x "\${${T}_e0[@]}"; ${lastStatusTracedStep(T)}`)}
${T}_x=
${T}_tm=${bashSingleQuote(trapMoves)}
${T}_ret=\${${T}_ret-}
${T}_rx=
${lastStatusInstall(T)}
${quietInstall(T, {
  err: errTrapAction(T),
  debug: keepingLastArg(T, `${T}_d`, `${T}_dl`),
  ret: keepingLastArg(T, `${T}_r`, `${T}_rl`),
})}
${rareStepsInstall(T, rare)}
${T}_hook=${bashSingleQuote(`{ ${lastStatusAtPrompt(T)}; [[ -z \${${T}_in-}\${${T}_o-} && \${PS1-} == "$${T}_p1"*"$${T}_p2" ]] || ${T}_h; ${traceOptionsAtPrompt(T)}; ${ownVariablesUnexported(T)}; } 2>/dev/null`)}
${jobNoticesInstall(T)}
${traceOptionsInstall(T)}
builtin bind 'set enable-bracketed-paste off' 2>/dev/null
${writable('HISTCONTROL')} && builtin printf -v HISTCONTROL %s "\${HISTCONTROL:-ignorespace}" 2>/dev/null
# First in this program: the launch's, or a fresh bash a command started with \`exec bash\`,
# whose line editor is on (the launch's is off: --noediting, see launch()). \`W\`: how wide
# the last line of the prompt it showed is (its invisible \\[…\\] parts left out), for the
# engine to take that prompt off the call's output (session/fresh-shell-install.ts).
[[ -n \${${T}_ready-} ]] || {
  ${T}_pw=\${PS1@P} ${T}_pw=\${${T}_pw##*$'\\n'}
  while [[ $${T}_pw == *$'\\001'*$'\\002'* ]]; do ${T}_pw=\${${T}_pw%%$'\\001'*}\${${T}_pw#*$'\\002'}; done
  ${mark('W', `"\${#${T}_pw}"`)}
  stty -echo 2>/dev/null; builtin set +o emacs +o vi; PS1='\\w\\$ '; ${T}_ready=1
}
${T}_h() {
  ${T}_q=$?
  ${T}_o=
  if [[ -n \${${T}_in-} ]]; then
    ${T}_x=\${-//[^x]/}
    ${traceOptionsAfterCommand(T)}
  fi
  ${errexitAfterCommand(T)}
  ${restoreMarks}
  if [[ \${PS1-} != *"$${T}_p2" ]]; then
    ${mark('H', `"$${T}_k;$${T}_s;$${T}_q"`)}
  fi
}
${T}_d() {
  ${T}_dl=$_
  [[ \${FUNCNAME[1]-} == ${T}_* || -n \${${T}_o-} || \${BASH_COMMAND-} == *${T}_* ]] && builtin return 0
  ${errTrapWatchStep(T)}
  [[ -z \${${T}_dbg-} ]] || {
    ${runUserAction(T, `${T}_dbg`)}
  }
}
${T}_r() {
  ${T}_rl=$_
  # Not for our own functions, nor for the run file's end (back at the top level in a call).
  [[ \${FUNCNAME[1]-} == ${T}_* || ( \${#FUNCNAME[@]} == 1 && -n \${${T}_in-} ) ]] && builtin return 0
  ${runUserAction(T, `${T}_ret`)}
}
${T}_pre() {
  \\unset -f builtin eval .
  ${ownVariablesBack}
  ${enableNeeded(mark('X', '""'))}
  ${traceOptionsRead(T)}
  builtin set +xv
  ${ownVariablesUnexported(T)}
  if [[ -n \${${T}_k@a}\${${T}_c@a}\${${T}_s@a}\${${T}_x@a}\${${T}_n@a}\${${T}_f@a}\${${T}_o@a} || \${${T}_ca@a}\${${T}_la@a} != aa ]]; then
    ${mark('X', '""')}
    builtin return 0
  fi
  ${T}_rx=
  # The nonce's line, then the command as it is (no NUL in it: bash holds none).
  builtin mapfile -d '' -n 1 ${T}_ca <"$${T}_f" || ${T}_ca=()
  ${T}_c=\${${T}_ca[0]-} ${T}_k=
  if [[ $${T}_c == *$'\n'* ]]; then
    ${T}_k=\${${T}_c%%$'\n'*} ${T}_c=\${${T}_c#*$'\n'}
  fi
  [[ -n $${T}_k ]] || builtin return 0
  ${lastStatusChoose(T)}
  # The start mark before the command is marked taken: a mark that cannot be printed
  # (printf disabled) leaves it untaken, so the engine knows the command did not run.
  if ! ${mark('S', `"$${T}_k"`)}; then
    ${T}_c=
    builtin return 0
  fi
  builtin printf %-${TAKEN_MARK_BYTES}s "$${T}_k" 1<>"$${T}_g"
  [[ :\${SHELLOPTS-}: == *:history:* ]] && builtin history -s -- "$${T}_c"
  ${T}_4m=
  [[ -z $${T}_x ]] || ${T}_c=$${T}_xp$${T}_c
  ${errexitBeforeCommand(T)}
  ${rareStep(T, rare, 'ps4Switch')}
  ${runFileSteps(T)}
  ${ownVariablesUnexported(T)}
}
${T}_post() {
  \\unset -f builtin eval
  if [[ -z \${${T}_n-} ]]; then
    # The command's status (unset: it was 0, see the call line) outlives the file's defaults.
    ${T}_ks=\${${T}_s:-0}
    ${ownVariablesBack}
    # This call's nonce again, from its command file.
    builtin mapfile -d '' -n 1 ${T}_ca <"$${T}_f" || ${T}_ca=()
    ${T}_k=\${${T}_ca[0]-} ${T}_k=\${${T}_k%%$'\n'*} ${T}_s=$${T}_ks
    # The call line could not capture the traps (no file name): as after \`enable -n trap\`,
    # they are taken as the last call left them (a missing capture read as none removed ours).
    builtin printf 'X\0' 1<>"$${T}_t" || ${T}_y=
  fi
  ${T}_x=\${-//[^x]/} ${T}_o= ${lastStatusAfterCall(T)}
  ${traceOptionsAfterCommand(T)}
  ${trapCaptureRead(T, `${T}_t`)}
  ${errexitAfterCommand(T)}
  ${T}_c=
  ${rareStep(T, rare, 'keywordAliasesOff')}
  case :\${HISTCONTROL-}: in
    *:ignorespace:* | *:ignoreboth:*) ;;
    *) ${rareStep(T, rare, 'histcontrolSpace')} ;;
  esac
  ${rareStep(T, rare, 'ps4Restore')}
  # The hook runs after every other prompt command and puts the marks back. Where it cannot
  # be put back (a read-only PROMPT_COMMAND), post puts them back itself.
  ${rareStep(T, rare, 'hookBack')}
  # (\`X\`: \`trap\` was disabled by the command, \`enable -n trap\`: the traps are as they were.)
  ${trapsUnchanged(T)} || [[ $${T}_lt == X ]] ||
    builtin eval -- "\${${T}_tm-}"
  ${jobNoticesBeforeEnd(T)}
  builtin printf %-${TAKEN_MARK_BYTES}s "$${T}_k;$${T}_s" 1<>"$${T}_g"
  {
    ${jobNoticesPrint(T)}
    ${markText('E', `"$${T}_k;$${T}_s"`)}
  } >/dev/tty
  builtin return 0
}
${writable('PROMPT_COMMAND')} && builtin printf -v 'PROMPT_COMMAND[${HOOK_INDEX}]' %s "$${T}_hook" 2>/dev/null
${errexitInstall(T)}
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
      env: { HISTCONTROL: 'ignorespace', HISTFILE: '', SHELL: bashPath() },
      leadsProcessGroup: true,
    };
  },
  // The trap texts are the shell's to write (in its own directory): none is made here.
  async install(context: DialectContext): Promise<string> {
    // The command runs in a file of its own, sourced: see bash-errexit.ts.
    const T = namesOf(context);
    const runFile = context.deliver('run.bash', runFileText(T));
    const script = context.deliver(INTEGRATION_FILE, integrationScript(context, runFile));
    return ` . ${bashSingleQuote(script)}\n`;
  },
  // readline for a person: history, arrow keys, Tab. A leading space keeps them out of history.
  // `stty` runs as a job of the shell's own, so bash records the terminal's modes with echo
  // as wanted: it puts those back when a job ends by a signal (a Ctrl+C), and readline echoes
  // typed keys only when the terminal it finds echoes.
  // Each line says it is ours, so the prompt hook keeps `$?` as the line before left it.
  humanEditing(context: DialectContext) {
    const posted = lastStatusPosted(namesOf(context));
    // As builtins and from the standard PATH, whatever functions, aliases or PATH the
    // agent's shell has: an agent's `stty` function that slept held a hand-back.
    const editing = '\\unset -f builtin; \\builtin set ';
    const stty = '\\builtin command -p stty';
    return {
      on: ` ${posted}; ${editing}-o emacs; ${stty} echo\n`,
      off: ` ${posted}; ${editing}+o emacs; ${stty} -echo\n`,
    };
  },
  // Short on purpose: fewer bytes through the terminal (and through readline, should a human
  // have switched it on), so the per-call nonce travels in the command file instead. LF, not
  // CR, ends it: a command may have switched off the terminal's CR-to-LF (`stty -icrnl`).
  callLine(context: DialectContext): string {
    const T = namesOf(context);
    const errTrap = errTrapAroundRun(T);
    // The steps after the run file are the integration's, and the DEBUG dispatcher skips them:
    // `_o` says so from the first (an assignment of ours) until post. No step has an
    // assignment in front (`x= cmd`): bash rebuilds the whole exported environment after each
    // such command, the largest part of a call's cost in bash when the line had seven. A
    // DEBUG trap the command set itself (moved behind the dispatcher only by post) runs
    // before each step: what it prints of them (`$BASH_COMMAND`, the steps' text) goes to
    // /dev/null with everything else the steps print, for post writes what it shows to the
    // terminal itself (the file is fd 9 for the capture's steps only).
    // After the command, variables of ours are read as `${x[@]}`, which `set -u` lets pass
    // unset: a command that unset them (see variablesBack) must not end the line before post.
    return (
      ` ${T}_s=I;{ \\${T}_pre||${T}_y=;${errTrap.before}} 2>/dev/null||${T}_y=;\\. "$${T}_rf"||{ ${T}_s=$?;} 2>/dev/null;` +
      `{ ${T}_s=\${${T}_s[@]/#I/0} ${T}_o=1;\\builtin enable printf;${trapCaptureStep(`${T}_t`)}` +
      `\\${T}_post||${T}_y=;${errTrap.after}} >/dev/null 2>&1||${T}_y=\n`
    );
  },
  freshShellAfterExec: (name, args) => name === 'bash' && startsInteractiveBash(args),
  // bash never asks where the cursor is, and with echo off its `read` prints nothing typed.
  answersCursorQueries: false,
  hostEchoesInput: false,
  ownGroupInterrupt: 'group',
};
