/**
 * The command-line flags and their environment variables, declared once: the parser options,
 * the variable each flag falls back to, and the usage text all come from this table.
 */
import type { ParseArgsConfig } from 'node:util';

interface FlagSpec {
  /** The environment variable read when the flag is absent. */
  readonly env?: string;
  /** Placeholder for the value in the usage text; flags without one are switches. */
  readonly value?: string;
  readonly multiple?: boolean;
  readonly short?: string;
  readonly help: string;
}

export const FLAGS = {
  host: { env: 'JUMPSEAT_HOST', value: 'HOST', help: 'address to listen on (127.0.0.1)' },
  port: {
    env: 'JUMPSEAT_PORT',
    value: 'PORT',
    help: 'port to listen on; 0 picks a free one (7400)',
  },
  'public-url': {
    env: 'JUMPSEAT_PUBLIC_URL',
    value: 'URL',
    help: 'the address people reach jumpseat at, for links and the banner (the listening address)',
  },
  'token-file': {
    env: 'JUMPSEAT_TOKEN_FILE',
    value: 'FILE',
    help: 'file holding the admin token (else JUMPSEAT_TOKEN, else <data-dir>/admin-token)',
  },
  'data-dir': { env: 'JUMPSEAT_DATA_DIR', value: 'DIR', help: 'state directory (./.jumpseat)' },
  workspace: {
    env: 'JUMPSEAT_WORKSPACE',
    value: 'DIR',
    help: "root of the shells' directories, <DIR>/<agent>; must exist (~/.local/share/jumpseat/workspaces, created)",
  },
  'shared-workspace': {
    env: 'JUMPSEAT_SHARED_WORKSPACE',
    help: 'every shell works in the workspace root itself instead of a directory of its own',
  },
  sandbox: {
    env: 'JUMPSEAT_SANDBOX',
    value: 'auto|bwrap|off',
    help: 'run each shell in a bubblewrap sandbox; auto falls back to none with a warning (auto)',
  },
  readable: {
    env: 'JUMPSEAT_READABLE',
    value: 'DIR',
    multiple: true,
    help: 'a directory every sandboxed shell may read (not write) at its own path, e.g. a project under test; repeatable (JUMPSEAT_READABLE: paths separated by :)',
  },
  network: {
    env: 'JUMPSEAT_NETWORK',
    value: 'on|off',
    help: 'sandboxed shells reach the network; off leaves them loopback only (on)',
  },
  'max-processes': {
    env: 'JUMPSEAT_MAX_PROCESSES',
    value: 'N',
    help: 'processes one shell may have at once (1024)',
  },
  'max-memory': {
    env: 'JUMPSEAT_MAX_MEMORY',
    value: 'SIZE',
    help: 'memory one shell may use, e.g. 2G (no limit)',
  },
  'timeout-ms': {
    env: 'JUMPSEAT_TIMEOUT_MS',
    value: 'MS',
    help: 'wall-clock limit of one call (300000)',
  },
  'max-output-chars': {
    env: 'JUMPSEAT_MAX_OUTPUT_CHARS',
    value: 'N',
    help: 'output characters returned before clipping (16000)',
  },
  clip: { env: 'JUMPSEAT_CLIP', value: 'MODE', help: 'head | head-tail (head)' },
  'bash-timeout-ms': { env: 'JUMPSEAT_BASH_TIMEOUT_MS', value: 'MS', help: 'bash only' },
  'pwsh-timeout-ms': { env: 'JUMPSEAT_PWSH_TIMEOUT_MS', value: 'MS', help: 'pwsh only' },
  'bash-max-output-chars': { env: 'JUMPSEAT_BASH_MAX_OUTPUT_CHARS', value: 'N', help: 'bash only' },
  'pwsh-max-output-chars': { env: 'JUMPSEAT_PWSH_MAX_OUTPUT_CHARS', value: 'N', help: 'pwsh only' },
  pwsh: {
    env: 'JUMPSEAT_PWSH',
    value: 'PATH',
    help: 'PowerShell 7 executable (pwsh on PATH, else ~/.dotnet/tools/pwsh)',
  },
  'env-pass': {
    env: 'JUMPSEAT_ENV_PASS',
    value: 'NAME[,NAME...]',
    multiple: true,
    help: 'variables let through the shell-environment secret filter',
  },
  'control-idle-ms': {
    env: 'JUMPSEAT_CONTROL_IDLE_MS',
    value: 'MS',
    help: 'a controller who types nothing this long hands the shell back to its agent (900000)',
  },
  'record-keystrokes': {
    env: 'JUMPSEAT_RECORD_KEYSTROKES',
    value: 'on|off',
    help: "put controllers' keystrokes in recordings; they can hold passwords (off)",
  },
  'recording-max-file-bytes': {
    env: 'JUMPSEAT_RECORDING_MAX_FILE_BYTES',
    value: 'N',
    help: 'a recording file rotates to a new part past this size (67108864)',
  },
  'recording-max-total-bytes': {
    env: 'JUMPSEAT_RECORDING_MAX_TOTAL_BYTES',
    value: 'N',
    help: 'oldest recording files are deleted past this total (1073741824)',
  },
  'recording-max-age-days': {
    env: 'JUMPSEAT_RECORDING_MAX_AGE_DAYS',
    value: 'DAYS',
    help: 'recordings, and past shells in the history, older than this are deleted (30)',
  },
  'needs-human-after-ms': {
    env: 'JUMPSEAT_NEEDS_HUMAN_AFTER_MS',
    value: 'MS',
    help: 'a shell waiting for input longer than this is marked "needs a human" (2000)',
  },
  log: {
    env: 'JUMPSEAT_LOG',
    value: 'LEVEL',
    help: 'off | fatal | error | warn | info | debug | trace (off)',
  },
  'live-per-token': {
    env: 'JUMPSEAT_LIVE_PER_TOKEN',
    value: 'N',
    help: 'live connections (shell streams, dashboards) one token may have open (32)',
  },
  'live-per-shell': {
    env: 'JUMPSEAT_LIVE_PER_SHELL',
    value: 'N',
    help: 'viewers one shell may have at once (64)',
  },
  'input-pending-max-bytes': {
    env: 'JUMPSEAT_INPUT_PENDING_MAX_BYTES',
    value: 'N',
    help: 'typed keys waiting for a shell past which more are dropped; Ctrl-C never is (262144)',
  },
  'mcp-sessions-per-token': {
    env: 'JUMPSEAT_MCP_SESSIONS_PER_TOKEN',
    value: 'N',
    help: "MCP sessions one token may have open; past it the token's own oldest idle one ends (64)",
  },
  help: { short: 'h', help: 'print this help and exit' },
  'audit-max-rows': {
    env: 'JUMPSEAT_AUDIT_MAX_ROWS',
    value: 'N',
    help: 'rows the auth audit keeps; refusals go first (100000)',
  },
  'spill-max-file-bytes': {
    env: 'JUMPSEAT_SPILL_MAX_FILE_BYTES',
    value: 'N',
    help: 'a saved full output is cut past this size (268435456)',
  },
  'spill-max-agent-bytes': {
    env: 'JUMPSEAT_SPILL_MAX_AGENT_BYTES',
    value: 'N',
    help: "one agent's saved outputs together; its oldest go first (1073741824)",
  },
  'spill-max-total-bytes': {
    env: 'JUMPSEAT_SPILL_MAX_TOTAL_BYTES',
    value: 'N',
    help: 'all saved outputs together; the oldest go first (4294967296)',
  },
} as const satisfies Record<string, FlagSpec>;

export type FlagName = keyof typeof FLAGS;

function spec(name: FlagName): FlagSpec {
  return FLAGS[name];
}

/** The `node:util` parseArgs options for FLAGS. */
export function parseArgsOptions(): NonNullable<ParseArgsConfig['options']> {
  const options: NonNullable<ParseArgsConfig['options']> = {};
  for (const name of Object.keys(FLAGS) as FlagName[]) {
    const flag = spec(name);
    options[name] = {
      type: flag.value === undefined ? 'boolean' : 'string',
      ...(flag.multiple ? { multiple: true } : {}),
      ...(flag.short === undefined ? {} : { short: flag.short }),
    };
  }
  return options;
}

export function envNameOf(name: FlagName): string | undefined {
  return spec(name).env;
}

export function usage(): string {
  const rows = (Object.keys(FLAGS) as FlagName[]).map((name) => {
    const flag = spec(name);
    const left = `  --${name}${flag.value === undefined ? '' : ` ${flag.value}`}`;
    const env = flag.env === undefined ? '' : ` [${flag.env}]`;
    return `${left.padEnd(40)}${flag.help}${env}`;
  });
  return [
    'Usage: jumpseat [flags]',
    '',
    'Serves persistent bash/pwsh shells to AI agents over HTTP.',
    'Flags win over their environment variables. The admin token is read from',
    'JUMPSEAT_TOKEN or a token file, never from the command line.',
    '',
    ...rows,
    '',
  ].join('\n');
}
