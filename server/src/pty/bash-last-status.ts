/**
 * What a command finds as `$?` and `$_` when it starts, and `$_` after a dispatcher ran.
 *
 * `$?`: what a command finds when it starts (issue 22.1: the shell keeps the meaning of
 * what the agent wrote). At a terminal `$?` is the status of the line before: `make` in one
 * call, `echo $?` in the next gives make's status. Between two calls the integration runs
 * steps of its own, so the run file's last step before the command gives the status back: a
 * simple command at the run file's top level, whose status is the last call's (or that of
 * the last line a person typed at the prompt). It is never a failure that errexit or an ERR
 * trap sees: the run file's top level is in the call line's `||` list (bash-errexit.ts), and
 * - 0 is `builtin printf '' ''` (printf is a builtin the integration keeps enabled anyway);
 * - any other status is a function of ours that `return`s it (not a sourced file: bash runs
 *   the RETURN trap when a sourced file ends, and the RETURN dispatcher skips only functions
 *   of ours).
 * The step is named by an array, `"${cs[@]}" ''`, which pre sets only when the status changed.
 * bash still runs the ERR trap for it (a trap set in a sourced file fires there, and in the
 * function under errtrace), and the trap's prelude takes a failure whose text names
 * `<prefix>_c-` (the eval) or `<prefix>_cs` (this step, and the function's `return`) as the
 * run file's own: nothing to stop, no trap of the user's, and the dispatcher itself is not
 * even parsed (bash-errexit.ts). The status reaches pre through post (the call's) or the
 * prompt hook (a line a person typed, or one a `set -u` error abandoned); the lines that
 * switch line editing for a person say they are ours. The function is called at the top level: a low
 * FUNCNEST allows it (though with functrace on, a DEBUG trap and a FUNCNEST of 1, bash refuses
 * the DEBUG dispatcher inside it, as inside any function the user calls).
 *
 * `$_`: bash sets it after every simple command to that command's last word, a trap's steps
 * included, and does not give it back when the trap is done. The DEBUG and RETURN actions end
 * with a step whose last word is `$_` as the dispatcher found it (keepingLastArg), not
 * `__js…_d`. The ERR action's `eval` has an empty last word: after a failure `$_` is empty
 * (a terminal shows the failed command's last word, or that of the user's ERR trap), never the
 * dispatcher's text. The ERR action's text passes through several expansions at every call,
 * and a step more there cost each call more than a percent of bash's work.
 *
 * Not kept, and written down: `$_` from one call to the next (bash sets it to the text of
 * `eval` when the command's eval ends, before any step of ours could read it: the command
 * finds it empty, never a word of the wrapper); and PIPESTATUS beyond one element (it is
 * `($?)`).
 */

import { bashSingleQuote } from './bash-quote.ts';

/** The names, all `<prefix>_…` (the integration's per-shell prefix). */
function names(T: string) {
  return {
    /** The status the next command finds as `$?`. */
    last: `${T}_csl`,
    /** The status the step is chosen for. */
    chosen: `${T}_lc`,
    /** The step, as the words of a simple command. */
    step: `${T}_cs`,
    /** The function that returns any other status. */
    give: `${T}_csg`,
    /** chooseSteps, as text. */
    choose: `${T}_csc`,
    /** The call's status, from post until the prompt hook takes it. */
    posted: `${T}_lp`,
  };
}

/**
 * A dispatcher's trap `action`, and after it `$_` as the trap found it: the dispatcher's first
 * step saved it in `saved` (an assignment, which bash does not count as a simple command's last
 * word). `printf -v` cannot fail, and is enabled again by pre in every call.
 */
export function keepingLastArg(T: string, action: string, saved: string): string {
  return `${action}; \\builtin printf -v ${T}_y %s "\${${saved}-}"`;
}

/** Top level of the integration script: every variable set (a repair keeps the status). */
export function lastStatusInstall(T: string): string {
  const n = names(T);
  return `${n.last}=\${${n.last}-0}
${n.chosen}=
${n.posted}=
${n.step}=(builtin printf '')
${n.give}() { \\builtin return "\${${n.last}-0}"; }
${n.choose}=${bashSingleQuote(chooseSteps(T))}`;
}

/**
 * In pre: the step for the status to give, chosen again only when the status changed (as
 * text it `eval`s then: bash copies a function's whole body at each call).
 */
export function lastStatusChoose(T: string): string {
  const n = names(T);
  return `[[ \${${n.last}-0} == "\${${n.chosen}-}" ]] || builtin eval -- "$${n.choose}"`;
}

/** lastStatusChoose's steps: the status, and the step that gives it. */
function chooseSteps(T: string): string {
  const n = names(T);
  return `${n.chosen}=\${${n.last}-0}
case $${n.chosen} in
  0) ${n.step}=(builtin printf '') ;;
  *) ${n.step}=(${n.give}) ;;
esac`;
}

/** The run file's step right before the command's `eval`. */
export function lastStatusStep(T: string): string {
  return `"\${${names(T).step}[@]}" ''`;
}

/**
 * The same step for a call with xtrace, which pre's `set -x` in front of the command would
 * make 0: once more after it, in a group whose trace goes nowhere (bash traces no `{`).
 */
export function lastStatusTracedStep(T: string): string {
  return `{ ${lastStatusStep(T)}; } >/dev/null 2>&1;`;
}

/** A step that says the line it is in is ours: the prompt hook after it keeps the status. */
export function lastStatusPosted(T: string): string {
  const n = names(T);
  return `${n.posted}=$${n.last}`;
}

/** In post: the call's status (`${T}_s`, known by then), for the prompt hook to take. */
export function lastStatusAfterCall(T: string): string {
  return `${names(T).posted}=$${T}_s`;
}

/**
 * The prompt hook's first step: the status the next command finds. After a call, post left
 * it in `posted`; otherwise (a line a person typed, or a call line a `set -u` error
 * abandoned, for which bash gives 1, as the call's result says) it is `$?`, as bash gives it
 * to every prompt command. One assignment: the hook's text is parsed at every prompt.
 */
export function lastStatusAtPrompt(T: string): string {
  const n = names(T);
  return `${n.last}=\${${n.posted}:-$?} ${n.posted}=`;
}
