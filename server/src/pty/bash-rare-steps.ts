/**
 * Steps pre and post take only in some calls, kept as text they `eval` then. bash copies a
 * function's whole body at every call, so pre and post hold only what every call runs; each
 * step here is a test they run always and a text parsed only when it holds.
 */
import { bashSingleQuote } from './bash-quote.ts';
import { writable, writableTerm } from './bash-writable.ts';

/** What the steps need from the integration. */
export interface RareStepsContext {
  /** Aliases named like reserved words, quoted for `unalias`. */
  readonly keywordAliases: string;
  /** The PROMPT_COMMAND element of the prompt hook. */
  readonly hookIndex: number;
  /** The steps that put the marks back into PS1. */
  readonly restoreMarks: string;
}

/** Each step: where pre or post takes it, when, and its text. */
function steps(T: string, context: RareStepsContext) {
  return {
    /**
     * In pre, in a call that may trace: PS4 gets an invisible first character (see the
     * integration's notes on xtrace).
     */
    ps4Switch: {
      name: `${T}_4p`,
      unless: `[[ -z $${T}_xt ]]`,
      text: `${T}_4u=\${PS4-} ${T}_4s=\${PS4+set}
${writable('PS4')} && builtin printf -v PS4 %s "$${T}_4\${PS4-+ }" && ${T}_4m=$PS4`,
    },
    /** In post: PS4 back as it was, where ps4Switch changed it and the command did not. */
    ps4Restore: {
      name: `${T}_4x`,
      unless: `[[ -z \${${T}_4m-} ]]`,
      text: `if [[ \${PS4-} == "$${T}_4m" && ${writableTerm('PS4')} ]]; then
  if [[ -n \${${T}_4s-} ]]; then builtin printf -v PS4 %s "\${${T}_4u-}" || ${T}_y=; else builtin unset PS4 || ${T}_y=; fi
fi`,
    },
    /** In post, when the shell has aliases: none named like a reserved word. */
    keywordAliasesOff: {
      name: `${T}_ua`,
      unless: '(( ! ${#BASH_ALIASES[@]} ))',
      text: `builtin unalias -- ${context.keywordAliases} 2>/dev/null || ${T}_y=`,
    },
    /** In post, inside a `case` that found HISTCONTROL without `ignorespace`. */
    histcontrolSpace: {
      name: `${T}_hc`,
      unless: '',
      text: `${writable('HISTCONTROL')} && builtin printf -v HISTCONTROL %s "\${HISTCONTROL:+$HISTCONTROL:}ignorespace"`,
    },
    /**
     * In post, when the prompt hook is gone: back in its place; where it cannot be (a
     * read-only PROMPT_COMMAND), the marks back in PS1 by post itself.
     */
    hookBack: {
      name: `${T}_hb`,
      unless: `[[ \${PROMPT_COMMAND[${context.hookIndex}]-} == "$${T}_hook" ]]`,
      text: `if ! { ${writable('PROMPT_COMMAND')} && builtin printf -v 'PROMPT_COMMAND[${context.hookIndex}]' %s "$${T}_hook"; }; then
  ${context.restoreMarks}
fi`,
    },
  };
}

type StepName = keyof ReturnType<typeof steps>;

/** Top level of the integration script: each step's text in its variable. */
export function rareStepsInstall(T: string, context: RareStepsContext): string {
  return Object.values(steps(T, context))
    .map(({ name, text }) => `${name}=${bashSingleQuote(text)}`)
    .join('\n');
}

/** Where pre or post takes the step `which`: its test, then its text. */
export function rareStep(T: string, context: RareStepsContext, which: StepName): string {
  const step = steps(T, context)[which];
  const run = `builtin eval -- "$${step.name}"`;
  return step.unless === '' ? run : `${step.unless} || ${run}`;
}
