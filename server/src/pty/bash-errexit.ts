/**
 * How a bash call keeps `set -e` meaning what it means in a script while the interactive
 * shell lives on (issue 22.1): the run file that runs the command, the ERR trap that stops
 * it where errexit would, and the steps that give the user back their options and traps.
 *
 * Design. Interactive bash under errexit leaves its top level, and so exits, after a failing
 * command, and on an expansion error (`set -u`) it exits at once, with no trap first. A
 * terminal closes; we must not. So the shell's own errexit never acts during a call, and the
 * ERR trap does its work instead, where bash's errexit would stop a script:
 * - the call line sources the run file as the first part of a `||` list, with `.` itself
 *   (bash does this only for `.`, `eval` and `command` named directly, not via `builtin`):
 *   bash then runs it with errexit ignored but still set (`$-` and `set -o` show the user's
 *   `e`, and `set -e` or `set +e` inside the command change what `$-` shows, nothing else);
 * - the run file `eval`s the command (its top level is the shell's: `declare` stays global,
 *   no function level for FUNCNEST), with errtrace on so the ERR trap fires in functions too.
 *   bash fires ERR exactly where errexit would act (not in conditions, not before the last
 *   command of `&&`/`||` lists, not after `!`);
 * - the trap (the dispatcher): when `$-` has `e`, in a subshell it exits it with the status
 *   (as errexit would; command substitutions show no `e` unless `inherit_errexit`); in the
 *   shell it marks the call unwinding and `return`s the status at each level (function,
 *   sourced file) up to the run file, whose status becomes the call's. The user's own ERR
 *   trap runs first, once, and only where bash runs it: in functions and subshells only with
 *   the user's own `-E`, never again while unwinding;
 * - `set -u` errors: interactive bash abandons the whole line, post included; the prompt
 *   mark then ends the call with `$?` (1), and the prompt hook puts errtrace back.
 *
 * Aliases are expanded when the run file's lines and the trap's text are parsed, after the
 * command may have defined `alias '{'=…`: both use no reserved word, only `((`, `&&`, `||`,
 * assignments and `\builtin`.
 *
 * What it cannot cover (written down, not hidden):
 * - during a call `$-`, `set -o` and `shopt -po` show errtrace on, and `trap -p ERR` shows
 *   the dispatcher; after the call they are the user's again. errtrace on after a call is
 *   the user's when the command's text switches it on (`set -E`, `set -o errtrace`: see
 *   USER_SETS_ERRTRACE); one switched on another way (`set -$flags`) lasts for that call.
 *   A text that switches it on has it for the user's ERR trap from its start: a function
 *   that fails before that `set -E` in the same call runs the trap where a script would not;
 * - an ERR trap set by a command replaces the dispatcher until the watch (see watchStep)
 *   puts it back before the next step of the call, or post at its end. The watch runs only
 *   in a call whose text names `trap` and `ERR` (see watchStep for xtrace), and
 *   looks after a step that names `trap`: a trap set inside a function without functrace,
 *   or by a step that does not name `trap` (`eval "$x"`, `. file`), or in a call the watch
 *   does not run in, is taken at the call's end, and a failure before then runs it without
 *   stopping the call. An ERR trap removed (`trap - ERR`) is put back by the watch,
 *   but bash arms a trap set inside the DEBUG trap only from the step after next: a failure
 *   in the step right after the removal does not stop the call;
 * - unwinding runs the RETURN traps of the functions it leaves (a script's errexit would
 *   not); `return` at the command's top level leaves the run file (`[exit code: N]`) where a
 *   terminal would say it can only return from a function; `BASH_SOURCE` and `caller` see
 *   the run file;
 * - a RETURN trap a command sets fires once more in that call, when the run file ends (bash
 *   runs it when a sourced file returns); from the next call on it is behind its dispatcher;
 * - bash runs the DEBUG trap before each command of a trap's action too, with
 *   `$BASH_COMMAND` still the failed command: a DEBUG trap of the user's (behind its
 *   dispatcher) runs for the steps of this ERR trap when a command fails, as it would for
 *   the user's own ERR trap's steps, so one that prints shows the failed command several
 *   times where a terminal without an ERR trap shows it once.
 */

import { lastStatusStep } from './bash-last-status.ts';
import {
  deeperTrace,
  QUIET_FD,
  QUIET_USER_REDIRECT,
  quietChoose,
  quietNames,
  shallowerTrace,
} from './bash-quiet-traps.ts';
import { bashSingleQuote } from './bash-quote.ts';
import { verboseEcho } from './bash-trace-options.ts';

/**
 * A command that reads like it switches errtrace on (`set -eE`, `set -o errtrace`): errtrace
 * on after the call is then the user's, not ours, and stays. (bash cannot tell the two apart.)
 */
const USER_SETS_ERRTRACE =
  '(^|[^[:alnum:]_])set[[:space:]]+(-[[:alnum:]]*E|-o[[:space:]]+errtrace)';

/**
 * A command that may switch xtrace on (`set -ex`, `set -o xtrace`, `shopt -so xtrace`), or
 * verbose (bash-trace-options.ts): the dispatchers are then quiet (bash-quiet-traps.ts).
 */
const USER_SETS_XTRACE = '(^|[^[:alnum:]_])set[[:space:]]+-[[:alnum:]]*[xv]|xtrace|verbose';

/** The names the pieces share, all `<prefix>_…` (the integration's per-shell prefix). */
function names(T: string) {
  return {
    /** A call's command is running: 1, else empty (pre sets it; post or the hook clear it). */
    inCall: `${T}_in`,
    /** The dispatcher is returning level by level (the user's trap has had its turn). */
    unwinding: `${T}_u`,
    /** errtrace as the user had it before the call (`E` or empty). */
    userErrtrace: `${T}_ue`,
    /** The user's ERR trap text (empty: none). */
    userTrap: `${T}_ut`,
    /** The dispatcher's text (its prelude, then itself), and the pattern of USER_SETS_ERRTRACE. */
    dispatcher: `${T}_et`,
    fullDispatcher: `${T}_etf`,
    /** The ERR trap's action: short, so `trap -p ERR` and its comparison stay cheap. */
    trapAction: `${T}_ev`,
    errtracePattern: `${T}_ure`,
    /** The pattern of USER_SETS_XTRACE. */
    xtracePattern: `${T}_uxe`,
    /** 1 while a call whose command names `trap` and `ERR` runs (see watchStep). */
    watch: `${T}_tw`,
    /** 1 when the step the DEBUG dispatcher last saw names `trap`. */
    trapStep: `${T}_tp`,
    /** The watch's step, as text the DEBUG dispatcher `eval`s. */
    watchStep: `${T}_twa`,
    /** optionSteps, as text pre `eval`s. */
    optionSteps: `${T}_ops`,
    /** runFileSteps' own, as text pre `eval`s. */
    runSteps: `${T}_rxs`,
  };
}

/**
 * The ERR trap's action. No function of ours (FUNCNEST), no reserved word (aliases), no
 * single quote (`trap -p` shows it as it is, so post recognises it), every variable set.
 * Its own failing commands are all in `&&`/`||` lists: errexit applies inside a trap.
 */
export function errDispatcher(T: string): string {
  const n = names(T);
  const q = `${T}_uq`; // the failing status
  const own = `${T}_uo`; // the failing command (the prelude let through none of the run file's own)
  const fn = `${T}_uf`; // non-empty inside a function
  const errexit = `${T}_ux`; // `e` when the user's errexit is on
  const run = `${T}_ur`; // 1: the user's trap runs
  const quiet = quietNames(T).quiet; // 1: the action is quiet (bash-quiet-traps.ts)
  // The status and the failing command were taken by the prelude (errDispatcherPrelude).
  return [
    `${fn}=\${FUNCNAME[*]-} ${run}=0`,
    `${fn}=\${${fn}//source/}`,
    `${fn}=\${${fn}// /}`,
    // Outside a call bash decided already whether the trap fires: the user's trap just runs.
    `(( \${#${n.userTrap}} && \${#${own}} && ( !\${#${n.inCall}} || ( BASHPID != $$ && \${#${n.userErrtrace}} ) || ( BASHPID == $$ && !\${#${n.unwinding}} && ( \${#${n.userErrtrace}} || !\${#${fn}} ) ) ) )) && ${run}=1`,
    // With the failing status as `$?` (a subshell exits with it, only on a failure with a
    // trap set), never itself a failure; when quiet, to the failing command's stderr.
    // Verbose, which bash-trace-options.ts keeps off during a call, would echo the action first.
    `(( !${run} || \${#${quiet}} || !\${#${T}_v} )) || \\builtin printf '%s\\n' "$${n.userTrap}" >&2 || ${T}_y=`,
    `(( !${run} || !\${#${quiet}} || !\${#${T}_v} )) || \\builtin printf '%s\\n' "$${n.userTrap}" >&${QUIET_FD} || ${T}_y=`,
    `(( !${run} || \${#${quiet}} )) || (\\builtin exit "$${q}") || \\builtin eval -- "$${n.userTrap}" || ${T}_y=`,
    `${T}_4b=`,
    `(( ${run} && \${#${quiet}} )) && ${deeperTrace(T)} || ${T}_y=`,
    `(( !${run} || !\${#${quiet}} )) || (\\builtin exit "$${q}") || \\builtin eval -- "$${n.userTrap}" ${QUIET_USER_REDIRECT} || ${T}_y=`,
    `${shallowerTrace(T)} || ${T}_y=`,
    `${errexit}=\${-//[^e]/}`,
    `(( \${#${n.inCall}} && \${#${own}} && \${#${errexit}} && BASHPID != $$ )) && \\builtin exit "$${q}"`,
    `(( \${#${n.inCall}} && \${#${own}} && \${#${errexit}} )) && ${n.unwinding}=1 && \\builtin return "$${q}"`,
    `${T}_y=`,
  ].join('\n');
}

/**
 * What the ERR trap `eval`s first: the failing status and the failing command, then the
 * dispatcher only when it has something to do. bash parses an `eval`'d text each time, and the
 * dispatcher's 900 bytes cost two thirds of a whole call's work (1.7 million instructions),
 * once for each failing command of a call and for the step that gives the next call its `$?`
 * (bash-last-status.ts). It has nothing to do for a failure of the run file's own (its eval,
 * whose status is the command's, or that step: the text names `<prefix>_c-` or `<prefix>_cs`),
 * nor when neither errexit nor a trap of the user's is on.
 */
export function errDispatcherPrelude(T: string): string {
  const n = names(T);
  return [
    `${T}_uq=$? ${T}_uo=\${BASH_COMMAND-}`,
    `[[ $${T}_uo == *"${T}_c"[-s]* || ( -z \${${n.userTrap}-} && $- != *e* ) ]] || \\builtin eval -- "\${${n.fullDispatcher}-}"`,
  ].join('\n');
}

/**
 * The ERR trap's action: the dispatcher's text run through `eval`, which keeps `$?`,
 * `BASH_COMMAND` (bash does not update it inside a trap) and the level `return` leaves. The
 * action is what the call line, the run file and post pass around and compare with `trap -p
 * ERR` at every call; the dispatcher's 900 bytes would be quoted, printed and compared each
 * time, and are parsed now only when the trap fires.
 */
export function errTrapAction(T: string): string {
  return `\\builtin eval -- "\${${names(T).dispatcher}-}" ""`;
}

/**
 * The run file, sourced by the call line. Parsed as it runs, so with the command's own
 * aliases: no reserved word. The eval is its last step (after it, xtrace may be on); the call
 * line captures the traps the command set. One line: bash numbers the lines of an `eval`'d
 * text from the line the eval is on, so the command's line 1 is line 1 in its own syntax
 * errors (`bash: eval: line 1: …`) and in `$LINENO`, as in a script. Short: bash parses it
 * at every call, at a cost per character (about a thousand instructions each), so the steps
 * only some calls need are the text pre chose (runFileSteps).
 */
export function runFileText(T: string): string {
  const n = names(T);
  return `${[
    // The call line removed it: see errTrapAroundRun.
    `\\builtin trap -- "$${n.trapAction}" ERR`,
    `\\builtin eval -- "\${${T}_rx-}"`,
    // The last call's status as `$?` (bash-last-status.ts): nothing may run after it.
    lastStatusStep(T),
    `\\builtin eval -- "\${${T}_c-}"`,
  ].join('; ')}\n`;
}

/**
 * At the end of pre: the run file's steps this call needs, as text the run file `eval`s at
 * its top level (`${T}_rx`, which pre empties before it reads the command).
 * - A sourced file starts without the DEBUG trap unless functrace is on. The DEBUG dispatcher
 *   runs for a trap of the user's, and for the ERR trap watch.
 * - The RETURN dispatcher stays from call to call: it is put back as pre chose it.
 * - With verbose on, the command's text, echoed as bash echoes a line it reads.
 */
export function runFileSteps(T: string): string {
  return `(( \${#${T}_dbg} || \${#${names(T).watch}} || \${#${T}_ret} || \${#${T}_v} )) && builtin eval -- "$${names(T).runSteps}"`;
}

function runSteps(T: string): string {
  const q = quietNames(T);
  const step = (text: string) => `${T}_rx+=${bashSingleQuote(`${text}; `)}`;
  return `(( !\${#${T}_dbg} && !\${#${names(T).watch}} )) || ${step(`\\builtin trap -- "$${q.debugAction}" DEBUG`)}
(( !\${#${T}_ret} )) || ${step(`\\builtin trap -- "$${q.returnAction}" RETURN`)}
(( !\${#${T}_v} )) || ${step(verboseEcho(T))}`;
}

/**
 * The ERR trap watch. A command that sets an ERR trap (`set -e; trap '…' ERR; cd build; rm
 * -rf *`, a common preamble) replaces the dispatcher, and without it nothing stops the rest of
 * that call. So while a call whose text names `trap` and `ERR` runs, the DEBUG dispatcher
 * runs before each of its steps (see runFileText): it notes a step that names `trap`, and
 * before the next one it reads the ERR trap (errtrace is on in a call, so a function sees it)
 * and, when it is not the dispatcher, takes it as the user's and puts the dispatcher back, as
 * post does at the end of a call. The cost, a function call per step (about 20 µs here; a
 * loop of 20,000 `:` takes 0.47 s instead of 0.03 s), is paid only in such calls. With xtrace
 * the DEBUG dispatcher is quiet (bash-quiet-traps.ts), about twice as dear per step; where
 * it cannot be (a text that defines an alias named `{`) the watch stays off, for bash would
 * trace its steps into the result. It reads the file as post does (trapCaptureRead),
 * but is `eval`ed during the command: the user's aliases apply (every builtin `\builtin`),
 * and stderr is the user's (errors to /dev/null).
 */
function watchStep(T: string): string {
  const n = names(T);
  return `if [[ -n \${${n.trapStep}-} ]]; then
  ${n.trapStep}=
  # Not while the command keeps \`trap\` disabled (\`enable -n trap\`): post puts it back.
  if { \\builtin trap -p ERR && \\builtin printf '\\0'; } >|"$${T}_t" 2>/dev/null; then
    \\builtin mapfile -d '' -n 1 ${T}_la <"$${T}_t" 2>/dev/null || ${T}_la=()
    ${T}_tl=\${${T}_la[0]-}
    if [[ $${T}_tl != "\${${T}_ke-}" ]]; then
      ${errTrapMove(T, `${T}_tl`)}
      \\builtin trap -- "$${n.trapAction}" ERR
    fi
  fi
fi
[[ \${BASH_COMMAND-} != *trap* ]] || ${n.trapStep}=1`;
}

/** In the DEBUG dispatcher, before the user's DEBUG trap: the watch's step, while it is on. */
export function errTrapWatchStep(T: string): string {
  const n = names(T);
  // The step's text is parsed only when it has something to do (a `trap` step, or the one after).
  return `[[ -z \${${n.watch}-} || ( -z \${${n.trapStep}-} && \${BASH_COMMAND-} != *trap* ) ]] ||
    builtin eval -- "\${${n.watchStep}-}"`;
}

/** Top level of the integration script: every variable set, the dispatcher the ERR trap. */
export function errexitInstall(T: string): string {
  const n = names(T);
  return `${n.dispatcher}=${bashSingleQuote(errDispatcherPrelude(T))}
${n.fullDispatcher}=${bashSingleQuote(errDispatcher(T))}
${n.errtracePattern}=${bashSingleQuote(USER_SETS_ERRTRACE)}
${n.xtracePattern}=${bashSingleQuote(USER_SETS_XTRACE)}
${n.userTrap}=\${${n.userTrap}-}
${n.inCall}=
${n.unwinding}=
${n.userErrtrace}=
${n.watch}=
${n.trapStep}=
${n.watchStep}=${bashSingleQuote(watchStep(T))}
${n.optionSteps}=${bashSingleQuote(optionSteps(T))}
${n.runSteps}=${bashSingleQuote(runSteps(T))}
${T}_dbg=\${${T}_dbg-}
builtin trap -- "$${n.trapAction}" ERR`;
}

/**
 * In pre, the last step before the command: errtrace on, the call marked running, the
 * dispatchers' kind chosen (bash-quiet-traps.ts). The usual call (no xtrace, quiet
 * dispatchers off, a text that names none of `set`, `xtrace`, `verbose`) asks one `[[ ]]`.
 */
export function errexitBeforeCommand(T: string): string {
  const n = names(T);
  const c = `\${${T}_c-}`;
  return `${n.userErrtrace}=\${-//[^E]/} ${n.unwinding}= ${n.inCall}=1 ${n.trapStep}= ${n.watch}= ${T}_xt=$${T}_x ${T}_qw=
  if [[ ${c} == *set* || ${c} == *xtrace* || ${c} == *verbose* || -n $${T}_x\${${quietNames(T).quiet}-} ]]; then
    builtin eval -- "$${n.optionSteps}"
  fi
  [[ ${c} != *trap* || ${c} != *ERR* || ( -n $${T}_xt && -z $${T}_qw ) ]] ||
    ${n.watch}=1
  builtin set -E`;
}

/**
 * errexitBeforeCommand's steps for a text that names `set`, `xtrace` or `verbose`, or a call
 * with xtrace on or quiet dispatchers, as text pre `eval`s then: bash copies a function's
 * whole body at each call, so pre holds only what every call runs.
 */
function optionSteps(T: string): string {
  const n = names(T);
  const c = `\${${T}_c-}`;
  return `# A text that switches errtrace on (\`set -Eeuo pipefail; trap … ERR\`, a common preamble)
# has it from its start: its trap then fires in functions, as in the script it reads like.
[[ -n $${n.userErrtrace} || ${c} != *set* || ! ${c} =~ $${n.errtracePattern} ]] ||
  ${n.userErrtrace}=E
${quietChoose(T, n.xtracePattern)}`;
}

/**
 * In post and in the prompt hook (a line abandoned by a `set -u` error ran no post): the
 * user's errtrace back, once per call. The pattern is matched only against a command that
 * names `set` at all: bash compiles a `=~` pattern each time it is matched.
 */
export function errexitAfterCommand(T: string): string {
  const n = names(T);
  return `if [[ -n \${${n.inCall}-} ]]; then
    ${n.inCall}= ${n.watch}=
    [[ -n \${${n.userErrtrace}-} || ( \${${T}_c-} == *set* && \${${T}_c-} =~ $${n.errtracePattern} ) ]] ||
      builtin set +E
    ${n.unwinding}=
  fi`;
}

/**
 * In post: an ERR trap the command set (or removed) becomes the user's trap, and the
 * dispatcher takes its place again. `shown` is a variable holding the call line's
 * `trap -p ERR`.
 */
export function errTrapMove(T: string, shown: string): string {
  const n = names(T);
  // In POSIX mode `trap -p` shows an unset trap as `trap -- - ERR`: no trap.
  return `${T}_l=\${${shown}%$'\\n'}
  [[ $${T}_l != "trap -- - ERR" ]] || ${T}_l=
  if [[ $${T}_l != "trap -- '$${n.trapAction}' ERR" ]]; then
    ${n.userTrap}=
    if [[ $${T}_l == "trap -- "*" ERR" ]]; then
      ${T}_l=\${${T}_l#trap -- }
      \\builtin eval "${n.userTrap}=\${${T}_l% ERR}"
    fi
  fi`;
}

/**
 * The call line's steps around the run file, at its top level: a function's changes to the
 * ERR trap are undone when it returns (without errtrace). Before: no ERR trap, or bash would
 * put it back when the run file ends, over one the command set (the run file installs the
 * dispatcher first thing). After (post has taken the command's trap): the dispatcher again.
 */
export function errTrapAroundRun(T: string): { before: string; after: string } {
  return {
    // Named through a variable of ours, so the DEBUG dispatcher knows it as ours. The DEBUG
    // trap goes too: bash puts back after `.` a DEBUG trap it had before, so a command's
    // `trap - DEBUG` would not last; the run file sets the dispatcher again when there is a
    // trap of the command's to dispatch, and post reads what the command left.
    before: `\\builtin trap - "\${${T}_sig-ERR}" "\${${T}_sigd-DEBUG}";`,
    after: `\\builtin trap -- "$${names(T).trapAction}" ERR;`,
  };
}
