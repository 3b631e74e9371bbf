/**
 * The integration's trap actions, quiet under xtrace (issue 22.4: wrapper text never shows).
 *
 * The ERR, DEBUG and RETURN traps are the integration's dispatchers (bash-errexit.ts,
 * bash-dialect.ts). Under `set -x` bash traces every step of a trap's action, the first one
 * included, before that step's own redirections apply: a dispatcher run plainly put its whole
 * text into the result of every failing command (`set -x`, then `grep -q x file`).
 *
 * Nothing of ours may show, and the user's own trap action must trace and print as at a
 * terminal. So in a call that runs with xtrace (on when it starts, or a text that may switch
 * it on, or verbose: USER_SETS_XTRACE), each dispatcher's action is a group whose redirections apply
 * before anything inside it is traced: `{ ACTION; } 99>&2 2>/dev/null`. The dispatcher's steps
 * trace to /dev/null; the user's action runs with `2>&99 99>&-`, its stderr (and trace) the
 * one the failing command had. Otherwise the action is plain: the group costs a DEBUG trap
 * about twice its time per step, and a group is parsed (when the trap fires) with the
 * aliases of the moment, where one named `{` or `}` (`alias '{'=…`, which post removes after
 * the call) would break it. A call whose text reads like it defines one stays plain, and
 * traces the dispatchers' steps.
 *
 * pre picks the kind for the call and, when it differs from the last call's, switches every
 * text the integration installs and compares with `trap -p` (the actions, and what `trap -p`
 * shows for each); the run file installs the ERR and DEBUG actions afresh in each call, and
 * the RETURN action while the user has a RETURN trap.
 *
 * Not covered, in a call with xtrace on: xtrace switched on by a text that does not read like
 * it (`set -$flags`: the dispatchers trace as before); stderr closed (`exec 2>&-`: the group's
 * `99>&2` fails, so the dispatcher does not run and that call does not stop where errexit
 * would). And a trace sent to another descriptor with BASH_XTRACEFD goes where no redirection
 * of ours reaches: the integration's own steps (call line, post, dispatchers) are traced into
 * it. Into a file (`exec 5>trace.log; BASH_XTRACEFD=5`) that is never a result; but where that
 * descriptor is the terminal (`BASH_XTRACEFD=1`, or a copy of stdout: `exec 3>&1`), the
 * dispatchers' steps of a failing command, and with a copy the call line's and post's, show in
 * the result. The user's trap actions see fd 99 closed.
 */
import { bashSingleQuote } from './bash-quote.ts';

/** The descriptor that holds the failing command's stderr inside a quiet dispatcher. */
export const QUIET_FD = 99;

/** Where a user's trap action writes inside a quiet dispatcher. */
export const QUIET_USER_REDIRECT = `2>&${QUIET_FD} ${QUIET_FD}>&-`;

/** The names the quiet switch uses, all `<prefix>_…`. */
export function quietNames(T: string) {
  return {
    /** 1 while the dispatchers are quiet (pre sets it per call), else empty. */
    quiet: `${T}_tv`,
    /** The ERR, DEBUG and RETURN actions in force. */
    errAction: `${T}_ev`,
    debugAction: `${T}_dv`,
    returnAction: `${T}_rv`,
    /** What `trap -p` shows for each action in force, newline included. */
    errShown: `${T}_ke`,
    debugShown: `${T}_kd`,
    returnShown: `${T}_kr`,
  };
}

/** The three actions, plain: ERR's is `errAction` (bash-errexit.ts), the others call functions. */
export interface PlainActions {
  readonly err: string;
  readonly debug: string;
  readonly ret: string;
}

function quietly(action: string): string {
  return `{ ${action}; } ${QUIET_FD}>&2 2>/dev/null`;
}

/** `trap -p`'s line for `action` on `signal`, as text bash reads back (`$'\n'` ends it). */
function shownAsLeft(action: string, signal: string): string {
  return `${bashSingleQuote(`trap -- '${action}' ${signal}`)}$'\\n'`;
}

/**
 * Top level of the integration script: both sets of texts (arrays `…_qa` plain and `…_qb`
 * quiet, in the order of quietSwitch), and the plain ones in force.
 */
export function quietInstall(T: string, plain: PlainActions): string {
  const n = quietNames(T);
  const set = (make: (action: string) => string) => {
    const err = make(plain.err);
    const debug = make(plain.debug);
    const ret = make(plain.ret);
    return [
      bashSingleQuote(err),
      bashSingleQuote(debug),
      bashSingleQuote(ret),
      shownAsLeft(err, 'ERR'),
      shownAsLeft(debug, 'DEBUG'),
      shownAsLeft(ret, 'RETURN'),
    ].join(' ');
  };
  return `${T}_qa=(${set((action) => action)})
${T}_qb=(${set(quietly)})
${n.quiet}=
${quietSwitchTo(T, `${T}_qa`)}`;
}

function quietSwitchTo(T: string, texts: string): string {
  const n = quietNames(T);
  const order = [
    n.errAction,
    n.debugAction,
    n.returnAction,
    n.errShown,
    n.debugShown,
    n.returnShown,
  ];
  return order.map((name, i) => `${name}=\${${texts}[${i}]}`).join(' ');
}

/**
 * In pre, inside errexitBeforeCommand's branch for a text that names `set`, `xtrace` or
 * `verbose`, or a call with xtrace on or quiet dispatchers: `${T}_xt` (preset to `${T}_x`,
 * xtrace at the call's start) becomes 1 when the call may run with xtrace or verbose, and
 * the dispatchers are quiet for it unless the text reads like it defines an alias named `{`
 * or `}`. `pattern` names the variable holding USER_SETS_XTRACE (bash compiles a `=~`
 * pattern each time it matches, so only texts that name one of the words get there).
 */
export function quietChoose(T: string, pattern: string): string {
  const n = quietNames(T);
  return `[[ -n $${T}_xt || ! \${${T}_c-} =~ $${pattern} ]] || ${T}_xt=1
    [[ -z $${T}_xt || ( \${${T}_c-} == *alias* && ( \${${T}_c-} == *[{}]=* || \${${T}_c-} == *[{}][\\"\\']=* ) ) ]] ||
      ${T}_qw=1
    if [[ \${${n.quiet}-} != "$${T}_qw" ]]; then
      if [[ -n $${T}_qw ]]; then ${quietSwitchTo(T, `${T}_qb`)}
      else ${quietSwitchTo(T, `${T}_qa`)}
      fi
      ${n.quiet}=$${T}_qw
    fi`;
}

/**
 * Before a user's action runs quietly: a terminal traces a trap's action one level deeper
 * (`++ echo E`). During a call PS4 starts with an invisible character of ours (pre), so every
 * level shows as one; while PS4 is still as pre left it (and writable: an assignment to a
 * read-only variable would abandon the call), its first visible character goes in once
 * more. One `[[ ]] && …` list (the ERR dispatcher has no reserved word); `${T}_4b` is empty
 * when PS4 was left alone.
 */
export function deeperTrace(T: string): string {
  return `[[ -n \${${T}_4m-} && \${PS4-} == "$${T}_4m" && \${PS4@a} != *r* ]] && ${T}_4b=\${PS4:0:1}\${PS4:1:1}\${PS4:1} PS4=$${T}_4b`;
}

/** After the user's action: PS4 as pre left it, unless the action changed it. */
export function shallowerTrace(T: string): string {
  return `[[ -z \${${T}_4b-} || \${PS4-} != "$${T}_4b" || \${PS4@a} == *r* ]] || PS4=$${T}_4m`;
}

/**
 * A dispatcher's step that runs the user's action held in `actionVar` (inside a function of
 * ours, where reserved words are safe): as it is when plain; when quiet, to the saved stderr,
 * one trace level deeper, with the action's status.
 */
export function runUserAction(T: string, actionVar: string): string {
  // Verbose, which bash-trace-options.ts keeps off during a call, would echo the action first.
  return `if [[ -z \${${quietNames(T).quiet}-} ]]; then
    [[ -z \${${T}_v-} ]] || builtin printf '%s\\n' "$${actionVar}" >&2
    builtin eval -- "$${actionVar}"
  else
    [[ -z \${${T}_v-} ]] || builtin printf '%s\\n' "$${actionVar}" >&${QUIET_FD}
    ${T}_4b=
    ${deeperTrace(T)}
    builtin eval -- "$${actionVar}" ${QUIET_USER_REDIRECT}
    ${T}_4r=$?
    ${shallowerTrace(T)}
    builtin return "$${T}_4r"
  fi`;
}
