/**
 * The command-line flags and their environment variables, declared once: the parser options,
 * the variable each flag falls back to, and the usage text all come from this table.
 */
import type { ParseArgsConfig } from 'node:util';

export interface FlagSpec {
  /** The environment variable read when the flag is absent. */
  readonly env?: string;
  /** Placeholder for the value in the usage text; flags without one are switches. */
  readonly value?: string;
  readonly multiple?: boolean;
  readonly short?: string;
  readonly help: string;
}

export const FLAGS = {
  config: {
    env: 'JUMPSEAT_CONFIG',
    value: 'FILE',
    help: 'a YAML (or JSON) file of settings, one key per flag without its dashes (port: 7400); flags and variables win over it',
  },
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
  'trust-proxy': {
    env: 'JUMPSEAT_TRUST_PROXY',
    value: 'ADDR[,ADDR...]',
    help: 'proxies (addresses, CIDRs, or loopback) whose X-Forwarded-For/Proto/Host count, and whose forwarded host passes the Origin check (none)',
  },
  'base-path': {
    env: 'JUMPSEAT_BASE_PATH',
    value: 'PATH',
    help: 'the path jumpseat is served under behind a proxy, e.g. /jumpseat/; requests with or without it are served (the path of --public-url, else /)',
  },
  'tls-cert': {
    env: 'JUMPSEAT_TLS_CERT',
    value: 'FILE',
    help: 'PEM certificate (chain) to serve HTTPS and WSS with, together with --tls-key; re-read on SIGHUP (none: plain HTTP)',
  },
  'tls-key': {
    env: 'JUMPSEAT_TLS_KEY',
    value: 'FILE',
    help: "PEM private key of --tls-cert's certificate",
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
  'shell-user': {
    env: 'JUMPSEAT_SHELL_USER',
    value: 'NAME|UID[:GID]',
    help: 'when the server is root, the unprivileged user sandboxed shells run as; made as a system user if missing (jumpseat-shell)',
  },
  network: {
    env: 'JUMPSEAT_NETWORK',
    value: 'on|off|host',
    help: "on: each sandbox has a network of its own with egress over IPv4 and IPv6 (slirp4netns), never the host's loopback; off: loopback only; host: the host's network, loopback included (on)",
  },
  'max-processes': {
    env: 'JUMPSEAT_MAX_PROCESSES',
    value: 'N',
    help: 'processes one shell may have at once (1024)',
  },
  'max-memory': {
    env: 'JUMPSEAT_MAX_MEMORY',
    value: 'SIZE|off',
    help: 'memory one shell may use, its tmpfs files included, no swap, e.g. 2G (4G)',
  },
  'tmp-size': {
    env: 'JUMPSEAT_TMP_SIZE',
    value: 'SIZE',
    help: 'size of each tmpfs of a sandbox: /tmp, /dev/shm, the hidden home and /run (1G)',
  },
  'cpu-weight': {
    env: 'JUMPSEAT_CPU_WEIGHT',
    value: 'N',
    help: "one shell's share of the CPU against the others, 1-10000 (100)",
  },
  'cpu-max': {
    env: 'JUMPSEAT_CPU_MAX',
    value: 'CPUS|off',
    help: 'CPUs one shell may use at most, e.g. 1.5 (off)',
  },
  'workspace-quota': {
    env: 'JUMPSEAT_WORKSPACE_QUOTA',
    value: 'SIZE|off',
    help: 'disk one workspace may hold, as a file system of its own (root only) (10G)',
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
  'pass-env': {
    env: 'JUMPSEAT_PASS_ENV',
    value: 'NAME[,NAME...]',
    multiple: true,
    help: 'server variables shells get beyond PATH, HOME, USER, LANG, LC_*, TZ and the like; repeatable',
  },
  'env-pass': {
    env: 'JUMPSEAT_ENV_PASS',
    value: 'NAME[,NAME...]',
    multiple: true,
    help: 'the former name of --pass-env; still read',
  },
  database: {
    env: 'JUMPSEAT_DATABASE_URL',
    value: 'URL',
    help: "keep the control plane's state in PostgreSQL (postgres://user:password@host/db), which replicas share; prefer the variable, a flag shows in ps (embedded SQLite in the data dir)",
  },
  'replica-url': {
    env: 'JUMPSEAT_REPLICA_URL',
    value: 'URL',
    help: 'where the other replicas on the same --database reach this one, to relay to the hosts linked here (its listening address)',
  },
  'local-shells': {
    env: 'JUMPSEAT_LOCAL_SHELLS',
    value: 'on|off',
    help: 'run shells in this process (on), or be a pure control plane whose shells all run on joined hosts ("jumpseat host --join URL") (on)',
  },
  'host-grace-ms': {
    env: 'JUMPSEAT_HOST_GRACE_MS',
    value: 'MS',
    help: "how long a joined host's shells wait for its link to come back before they are lost (60000)",
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
    'Flags win over their environment variables, and those over --config. The admin token is read from',
    'JUMPSEAT_TOKEN or a token file, never from the command line.',
    '',
    ...rows,
    '',
  ].join('\n');
}
