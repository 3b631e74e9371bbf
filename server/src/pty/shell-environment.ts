/**
 * Builds the environment a shell starts with: an allowlist of the server's variables (what a
 * shell needs to find its tools, speak the user's locale and know who and where it is), the
 * names the operator passes on purpose (`--pass-env`), and what a model-driven shell needs.
 * Everything else stays with the server: a denylist of secret-looking names let through
 * `DB_PASS`, `MYSQL_PWD`, `DATABASE_URL` and `CI_JOB_JWT`, and no list of words can know every
 * secret's name.
 */

/** The server's variables every shell gets, when set. */
const ALLOWED_NAMES = new Set([
  'PATH',
  'HOME',
  'USER',
  'LOGNAME',
  'SHELL',
  'TERM',
  'TZ',
  'TMPDIR',
  'LANG',
  'LANGUAGE',
]);

/** Locale categories (`LC_ALL`, `LC_CTYPE`, …): passed like LANG. */
const LOCALE_CATEGORY = /^LC_[A-Z_]+$/;

/** Variables describing another terminal or multiplexer; wrong inside our PTY even if passed. */
const TERMINAL_LEFTOVERS = new Set([
  'TMUX',
  'TMUX_PANE',
  'STY',
  'WINDOW',
  'COLUMNS',
  'LINES',
  'TERMCAP',
  'TERM_PROGRAM',
  'TERM_PROGRAM_VERSION',
  'COLORTERM',
  'VTE_VERSION',
  'PROMPT_COMMAND',
  'PS1',
  'BASH_ENV',
  'ENV',
  'HISTFILE',
  'HISTCONTROL',
]);

/** Whether a variable of the server's reaches shells without being passed. */
export function isAllowedByDefault(name: string): boolean {
  return ALLOWED_NAMES.has(name) || LOCALE_CATEGORY.test(name);
}

export interface ShellEnvironmentOptions {
  /** Variable names passed on top of the allowlist (`--pass-env`). */
  readonly pass: readonly string[];
  /** Variables the dialect needs; set last, so they win. */
  readonly extra: Readonly<Record<string, string>>;
}

export function shellEnvironment(
  base: NodeJS.ProcessEnv,
  options: ShellEnvironmentOptions,
): Record<string, string> {
  const passed = new Set(options.pass);
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(base)) {
    if (value === undefined || TERMINAL_LEFTOVERS.has(name)) continue;
    if (isAllowedByDefault(name) || passed.has(name)) env[name] = value;
  }
  env.TERM = 'xterm-256color';
  env.PAGER = 'cat';
  env.GIT_PAGER = 'cat';
  if (!isUtf8Locale(env)) env.LANG = 'C.UTF-8';
  if (env.LC_ALL !== undefined && !/utf-?8/i.test(env.LC_ALL)) delete env.LC_ALL;
  return { ...env, ...options.extra };
}

function isUtf8Locale(env: Record<string, string>): boolean {
  const effective = env.LC_ALL || env.LC_CTYPE || env.LANG || '';
  return /utf-?8/i.test(effective);
}
