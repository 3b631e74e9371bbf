/**
 * Turns `node:util` parseArgs failures into one-line messages naming the flag; Node's own
 * texts span several lines and would echo a value given as `--token=SECRET`.
 */

const TOKEN_FLAG_HINT =
  '--token is not accepted: every process can read command lines; use JUMPSEAT_TOKEN or --token-file';

export function parseFlagError(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  const code = error instanceof Error && 'code' in error ? error.code : undefined;
  // Node quotes the offending argument first: `Unknown option '--foo'`, `Option '--port <value>'
  // argument missing`, `Option '-h, --help' does not take an argument`.
  const quoted = /'([^']*)'/.exec(message)?.[1] ?? '';
  const flag = /-{1,2}[^\s=,<]+/.exec(quoted.replace(/^-\w, /, ''))?.[0] ?? quoted;
  switch (code) {
    case 'ERR_PARSE_ARGS_UNKNOWN_OPTION':
      if (flag === '--token') return TOKEN_FLAG_HINT;
      return `unknown flag ${flag} (see --help)`;
    case 'ERR_PARSE_ARGS_UNEXPECTED_POSITIONAL':
      return `unexpected argument ${JSON.stringify(quoted)}: jumpseat takes only flags (see --help)`;
    case 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE':
      if (message.includes('does not take an argument')) return `${flag} does not take a value`;
      if (message.includes('ambiguous')) {
        return `${flag} needs a value (write ${flag}=VALUE for one starting with "-")`;
      }
      return `${flag} needs a value`;
    default:
      return message.split('\n')[0] ?? message;
  }
}
