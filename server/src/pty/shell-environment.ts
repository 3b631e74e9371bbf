/**
 * Builds the environment a shell starts with: the server's own, minus secrets and terminal
 * multiplexer leftovers, plus what a model-driven, non-interactive-minded shell needs.
 */

/** Names containing one of these (any case) never reach a shell unless passed explicitly. */
const SECRET_WORDS = ['KEY', 'SECRET', 'TOKEN', 'PASSWORD'];

/** Variables describing another terminal or multiplexer; wrong inside our PTY. */
const TERMINAL_LEFTOVERS = [
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
];

export function isSecretName(name: string): boolean {
  const upper = name.toUpperCase();
  return upper.startsWith('JUMPSEAT_') || SECRET_WORDS.some((word) => upper.includes(word));
}

export interface ShellEnvironmentOptions {
  /** Variable names let through the secret filter. */
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
    if (value === undefined) continue;
    if (TERMINAL_LEFTOVERS.includes(name)) continue;
    if (isSecretName(name) && !passed.has(name)) continue;
    env[name] = value;
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
