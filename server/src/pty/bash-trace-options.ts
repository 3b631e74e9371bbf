/**
 * xtrace and verbose around and between calls (issue 22.4: wrapper text never shows).
 *
 * Between calls both are off, and `${T}_xk` holds the letters (`x`, `v`) of those the user
 * has on: the next call line's first step (an assignment, outside any group of ours) would
 * be traced, and the line itself echoed, to the shell's stderr, which a command may have sent
 * to a file of its own (`exec 2>log`). pre takes them from there (and from `$-`, for a person
 * who switched one at the prompt). Only while a person can type at the prompt (line editing
 * on: they hold the controls) does the prompt hook switch them on, as its last step, so that
 * what they type traces and echoes as at a terminal.
 *
 * verbose. bash echoes every line it parses: the run file's lines, the text of each trap
 * action as it fires, and everything those `eval`. No redirection of ours can come before
 * that echo, so verbose is off while a call's command runs too, and the run file echoes the
 * command's text itself, as a terminal echoes a line it reads (to stderr, with its newline);
 * the dispatchers echo a user's trap action (bash-quiet-traps.ts). A `set -v` inside the
 * command switches it on for real for the rest of that call. After the call the user's
 * verbose is on when the command switched it on, or when it was on and the text does not read
 * like it switches it off (USER_UNSETS_VERBOSE).
 *
 * Not covered: inside a call `$-` and `set -o` show verbose off, a string the command `eval`s
 * or a file it sources is not echoed (bash would echo them too), and a trap action that runs
 * after the command's own `set +v` is still echoed; in the rest of a call that runs `set -v`
 * itself, each firing trap echoes the integration's trap action (one line; the dispatchers
 * are quiet in such a call, and the rest stays hidden). `$-` at the prompt shows neither
 * while nobody holds the controls (nobody types there then).
 */
import { bashSingleQuote } from './bash-quote.ts';

/** A command that may switch verbose off (`set +v`, `set +o verbose`). */
const USER_UNSETS_VERBOSE = '(^|[^[:alnum:]_])set[[:space:]]+\\+[[:alnum:]]*v|verbose';

/** Top level of the integration script. */
export function traceOptionsInstall(T: string): string {
  return `${T}_v=
${T}_vn=
${T}_xk=\${${T}_xk-}
${T}_uve=${bashSingleQuote(USER_UNSETS_VERBOSE)}`;
}

/**
 * pre's assignment that reads them (pre then switches both off with one `set +xv`): `${T}_x`
 * and `${T}_v`, each the letter when on, from what the last call kept and from `$-`.
 */
export function traceOptionsRead(T: string): string {
  return `${T}_xk+=$- ${T}_x=\${${T}_xk//[^x]/} ${T}_v=\${${T}_xk//[^v]/} ${T}_xk=`;
}

/**
 * The run file's step before the command when verbose was on (runFileSteps): the command's
 * text, without the step pre put in front of it for xtrace (`${T}_xp`).
 */
export function verboseEcho(T: string): string {
  return `\\builtin printf '%s\\n' "\${${T}_c#"$${T}_xp"}" >&2`;
}

/**
 * After the command (post, after it read `$-` into `${T}_x`; or the prompt hook's function
 * for a line a `set -u` error abandoned, where no post ran): both off, and kept in `${T}_xk`.
 */
export function traceOptionsAfterCommand(T: string): string {
  return `${T}_vn=\${-//[^v]/} ${T}_xk=$${T}_x
  builtin set +xv
  [[ -z $${T}_vn$${T}_v ]] || {
    [[ -z $${T}_vn && \${${T}_c-} =~ $${T}_uve ]] || ${T}_xk+=v
    ${T}_v=
  }`;
}

/**
 * The prompt hook's last step (its text is parsed at every prompt, so verbose must be off
 * until then, or bash echoes it): while a person can type, the user's options back on.
 */
export function traceOptionsAtPrompt(T: string): string {
  return `[[ -z \${${T}_xk-} || ( ! -o emacs && ! -o vi ) ]] || { builtin set "-$${T}_xk"; ${T}_xk=; }`;
}
