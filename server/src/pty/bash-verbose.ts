/**
 * `set -v` (verbose) in a call (issue 22.4: wrapper text never shows). bash echoes every line
 * it parses: the run file's lines, the text of each trap action as it fires, and everything
 * those `eval`. No redirection of ours can come before that echo, so verbose is off while a
 * call's command runs, and the run file echoes the command's text itself, as a terminal echoes
 * a line it reads (to stderr, with its newline); the dispatchers echo a user's trap action. A
 * `set -v` inside the command switches it on for real for the rest of that call. post keeps
 * the user's verbose: on when the command switched it on, or when it was on and the text does
 * not read like it switches it off (USER_UNSETS_VERBOSE); the prompt hook, whose text bash
 * would echo too, puts it back on as its last step.
 *
 * Not covered: inside a call `$-` and `set -o` show verbose off, a string the command `eval`s
 * or a file it sources is not echoed (bash would echo them too), and a trap action that runs
 * after the command's own `set +v` is still echoed; in the rest of a call
 * that runs `set -v` itself, each firing trap echoes the integration's trap action (one line;
 * under xtrace the dispatchers are quiet, bash-quiet-traps.ts, and the rest stays hidden).
 */
import { bashSingleQuote } from './bash-quote.ts';

/** A command that may switch verbose off (`set +v`, `set +o verbose`). */
const USER_UNSETS_VERBOSE = '(^|[^[:alnum:]_])set[[:space:]]+\\+[[:alnum:]]*v|verbose';

/** Top level of the integration script. */
export function verboseInstall(T: string): string {
  return `${T}_v=
${T}_vn=
${T}_vk=\${${T}_vk-}
${T}_uve=${bashSingleQuote(USER_UNSETS_VERBOSE)}`;
}

/**
 * Joins pre's assignment that reads `$-` (pre then switches xtrace and verbose off with one
 * `set +xv`): verbose as the call found it, on at the prompt or kept by post for a prompt hook
 * that did not run.
 */
export function verboseRead(T: string): string {
  return `${T}_v=\${-//[^v]/}\${${T}_vk-} ${T}_vk=`;
}

/**
 * The run file's line before the command: the command's text when verbose was on, without
 * the step pre put in front of it for xtrace (`${T}_xp`).
 */
export function verboseEcho(T: string): string {
  return `(( !\${#${T}_v} )) || \\builtin printf '%s\\n' "\${${T}_c#"$${T}_xp"}" >&2`;
}

/** Joins post's assignment that reads `$-` (post then switches both off with `set +xv`). */
export function verboseReadAfter(T: string): string {
  return `${T}_vn=\${-//[^v]/}`;
}

/**
 * In post, before it clears the command's text (and in the prompt hook's function, for a line
 * a `set -u` error abandoned, where no post ran): the user's verbose is kept in `${T}_vk`
 * when it stays on: switched on by the command, or on before and not switched off by a text
 * that reads like it (USER_UNSETS_VERBOSE).
 */
export function verboseAfterCommand(T: string): string {
  return `[[ -z $${T}_vn$${T}_v ]] || {
    [[ -z $${T}_vn && \${${T}_c-} =~ $${T}_uve ]] || ${T}_vk=v
    ${T}_v=
  }`;
}

/**
 * The prompt hook's last step (its text is parsed at every prompt, so verbose must be off
 * until then, or bash echoes it): verbose back on for the prompt, a person's typing and the
 * next call's `$-`.
 */
export function verboseAtPrompt(T: string): string {
  return `[[ -z \${${T}_vk-} ]] || { builtin set -v; ${T}_vk=; }`;
}
