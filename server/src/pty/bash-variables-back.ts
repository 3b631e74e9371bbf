/**
 * bash: the integration's variables put back when a command unset them. The functions, which
 * an unset of variables leaves, carry the integration file's path, and pre and post source it
 * again first thing; the call line reads its variables after the command so that `set -u`
 * lets them pass unset (see bashDialect.callLine).
 */
import { bashSingleQuote } from './bash-quote.ts';

/** The integration's file in the shell's private dir (see DialectContext.deliver). */
export const INTEGRATION_FILE = 'integration.bash';

/**
 * The integration's variables sourced again when a command unset them (`unset ${!__js@}`, or
 * every variable): pre and post look first thing, and only the functions, which an unset of
 * variables leaves, know the file. `_ready` set first (holding whether `set -u` was on: the
 * file is sourced without it) keeps the prompt and the terminal as the shell has them.
 */
export function variablesBack(T: string, integrationFile: string): string {
  const source = `\\builtin . ${bashSingleQuote(integrationFile)}`;
  // The file is written for a shell without `set -u` (the launch's). `_ready` is never empty
  // meanwhile (`:` or `:u`): empty, the file would take the shell for a fresh one.
  const nounsetOff = `${T}_ready=:$- ${T}_ready=\${${T}_ready//[^:u]/}; \\builtin set +u`;
  const nounsetBack = `[[ $${T}_ready != :u ]] || \\builtin set -u; ${T}_ready=1`;
  return `[[ -n \${${T}_n-} ]] || { ${nounsetOff}; ${source}; ${nounsetBack}; } 2>/dev/null`;
}
