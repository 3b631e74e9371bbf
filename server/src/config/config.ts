/**
 * Start-up configuration: flags, then JUMPSEAT_* variables, then defaults, validated at once
 * so a bad value stops the server before anything starts, with one line naming the flag.
 */
import { homedir, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import type { Dialect } from '../../../shared/src/api.ts';
import { DEFAULT_HOST_GRACE_MS } from '../../../shared/src/link.ts';
import { type DatabaseUrl, readDatabaseUrl } from '../database/database-url.ts';
import { SANDBOX_MODES, type SandboxMode } from '../launch/launcher.ts';
import { checkShellUserSpec, DEFAULT_SHELL_USER } from '../launch/shell-user.ts';
import { DEFAULT_DESCRIPTIONS } from '../tool/contract-text.ts';
import {
  type AdminTokenInputs,
  type AdminTokenSource,
  givenAdminToken,
  storedAdminToken,
} from './admin-token.ts';
import { readBasePath } from './base-path.ts';
import { ConfigError, HelpRequested } from './config-error.ts';
import { withConfigFile } from './config-file.ts';
import { type ConnectionLimits, readConnectionLimits } from './connection-limits.ts';
import { DEFAULT_DATA_DIR } from './defaults.ts';
import { envNameOf, type FlagName, parseArgsOptions, usage } from './flags.ts';
import { parseFlagError } from './parse-flag-error.ts';
import { readPublicUrl } from './public-url.ts';
import { readReadableDirs } from './readable-dirs.ts';
import { type ResourceSettings, readResourceSettings } from './resource-settings.ts';
import {
  ensureDirectory,
  executableFile,
  existingDirectory,
  type FlagValues,
  got,
  nonEmpty,
  oneOf,
  positiveInteger,
  readHost,
  readPort,
  readSetting,
  type Setting,
} from './setting-values.ts';
import { readTlsSettings, type TlsSettings } from './tls-settings.ts';
import { readTrustProxy } from './trust-proxy.ts';
import { checkWorkspacePlace } from './workspace-place.ts';

export { DEFAULT_HOST, DEFAULT_PORT } from './setting-values.ts';

export const CLIP_MODES = ['head', 'head-tail'] as const;
export type ClipMode = (typeof CLIP_MODES)[number];

export const LOG_LEVELS = ['off', 'fatal', 'error', 'warn', 'info', 'debug', 'trace'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

/** What the history store records and keeps (README, "History and replay"). */
export interface HistorySettings {
  /** Controllers' keystrokes go into recordings as `i` events (they can hold passwords). */
  readonly recordKeystrokes: boolean;
  /** A recording file past this size is closed and the shell's next part begun. */
  readonly recordingMaxFileBytes: number;
  /** Oldest recording files are deleted while all of them together exceed this. */
  readonly recordingMaxTotalBytes: number;
  /** Recording files not written for this many days are deleted. */
  readonly recordingMaxAgeDays: number;
  /** Rows the auth audit keeps at most (refusals and first uses are dropped first). */
  readonly auditMaxRows: number;
}

/** Caps on the saved full outputs of clipped calls, enforced as they are written. */
export interface SpillSettings {
  readonly maxFileBytes: number;
  readonly maxAgentBytes: number;
  readonly maxTotalBytes: number;
}

/** The model-facing tool settings of one dialect (TOOL-CONTRACT.md, "Configuration"). */
export interface DialectSettings {
  readonly timeoutMs: number;
  readonly maxOutputChars: number;
  readonly clip: ClipMode;
  readonly description: string;
}

export interface Config extends ResourceSettings {
  readonly host: string;
  /** 0 asks the system for a free port; the bound one is on the server address. */
  readonly port: number;
  /** Absolute; exists after loadConfig. */
  readonly dataDir: string;
  /** Absolute; an existing directory after loadConfig: the root of the shells' directories. */
  readonly workspace: string;
  /** Every shell works in `workspace` itself rather than `<workspace>/<agent>`. */
  readonly sharedWorkspace: boolean;
  /** Where shells run (see launch/choose-launcher.ts). */
  readonly sandbox: SandboxMode;
  /** Who sandboxed shells run as when the server is root: a user name or `UID[:GID]`. */
  readonly shellUser: string;
  /** Never print or log it; only the login URL of the banner shows it, on purpose. */
  readonly adminToken: string;
  readonly adminTokenSource: AdminTokenSource;
  readonly dialects: { readonly bash: DialectSettings; readonly pwsh: DialectSettings };
  /** Server variables shells get beyond the allowlist (`--pass-env`). */
  readonly envPass: readonly string[];
  /** Directories every sandboxed shell may read at their own path (`--readable`). */
  readonly readable: readonly string[];
  /** The pwsh executable given explicitly (absolute, executable); else it is looked for. */
  readonly pwshPath: string | undefined;
  readonly logLevel: LogLevel;
  /** A controller who types nothing this long hands the shell back to its agent (ms). */
  readonly controlIdleMs: number;
  readonly history: HistorySettings;
  /**
   * Where people reach the server (`--public-url`, with `--base-path` when it names only an
   * origin), ending in `/`; null: the listening address.
   */
  readonly publicUrl: string | null;
  /** `--base-path`: the prefix browsers see jumpseat under, `/` or `/x/` (base-path.ts). */
  readonly basePath: string;
  /** `--tls-cert`/`--tls-key`: served over HTTPS and WSS; null for plain HTTP. */
  readonly tls: TlsSettings | null;
  /** `--trust-proxy`: proxies whose X-Forwarded-* headers count; empty for none. */
  readonly trustProxy: readonly string[];
  /** A shell waiting for input this long (ms) is marked "needs a human" in the web app. */
  readonly needsHumanAfterMs: number;
  readonly spill: SpillSettings;
  /** Live sockets and MCP sessions per token and shell, typed keys waiting per shell. */
  readonly limits: ConnectionLimits;
  /** Shells run in this process; off: a pure control plane, every shell on a joined host. */
  readonly localShells: boolean;
  /** `--database`: PostgreSQL for the control plane's state; null is the embedded SQLite. */
  readonly database: DatabaseUrl | null;
  /** `--replica-url`: where the other replicas reach this one; null: its listening address. */
  readonly replicaUrl: string | null;
  /** How long a joined host's shells wait for its link before they are lost (ms). */
  readonly hostGraceMs: number;
}

export { DEFAULT_DATA_DIR, DEFAULT_HOST_GRACE_MS };
/** Beside the user's other data, never inside the data dir (its tokens and history). */
export function defaultWorkspace(env: NodeJS.ProcessEnv): string {
  const dataHome = env.XDG_DATA_HOME || join(env.HOME || homedir(), '.local', 'share');
  return join(dataHome, 'jumpseat', 'workspaces');
}
export { DEFAULT_MAX_PROCESSES } from './resource-settings.ts';
export const DEFAULT_TIMEOUT_MS = 300_000;
export const DEFAULT_MAX_OUTPUT_CHARS = 16_000;
/** Timers fire at once for delays above 2^31-1 ms (~24.8 days), so no timeout may exceed it. */
export const MAX_TIMEOUT_MS = 2_147_483_647;
/** 15 minutes: a person who walked away stops blocking the agent, one who thinks does not. */
export const DEFAULT_CONTROL_IDLE_MS = 900_000;
/** The data directory holds token files: owner only. */
const DATA_DIR_MODE = 0o700;

/** An agent often answers its own prompt within a second; a human is called after 2 s. */
export const DEFAULT_NEEDS_HUMAN_AFTER_MS = 2000;
/** An hour: a longer wait before calling a human is a typo. */
const MAX_NEEDS_HUMAN_AFTER_MS = 3_600_000;
const DEFAULT_RECORDING_MAX_FILE_BYTES = 64 * 1024 * 1024;
const DEFAULT_RECORDING_MAX_TOTAL_BYTES = 1024 * 1024 * 1024;
const DEFAULT_RECORDING_MAX_AGE_DAYS = 30;
/** Refusals are one row per address and minute, so this is months of a busy server. */
const DEFAULT_AUDIT_MAX_ROWS = 100_000;
/** Fewer rows than this cannot hold a day's mints and revocations beside a flood. */
const MIN_AUDIT_MAX_ROWS = 100;
const DEFAULT_SPILL_MAX_FILE_BYTES = 256 * 1024 * 1024;
const DEFAULT_SPILL_MAX_AGENT_BYTES = 1024 * 1024 * 1024;
const DEFAULT_SPILL_MAX_TOTAL_BYTES = 4 * 1024 * 1024 * 1024;
/** A saved output must hold at least a clipped result's worth and its cut line. */
const MIN_SPILL_BYTES = 64 * 1024;
/** Smallest rotation size: a part must hold its header line and some output. */
const MIN_RECORDING_FILE_BYTES = 4096;
/** Smallest total: a recording's header, the room kept for the cap's markers, some output. */
const MIN_RECORDING_TOTAL_BYTES = 65536;
/** A century: ages beyond it are a typo, and the milliseconds stay exact. */
const MAX_RECORDING_AGE_DAYS = 36_500;

const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

export function loadConfig(
  argv: readonly string[],
  env: NodeJS.ProcessEnv,
  cwd: string = process.cwd(),
): Config {
  const values = parseFlags(argv);
  return withConfigFile(values, env, cwd, (layered) => configFrom(values, layered, cwd));
}

function configFrom(values: FlagValues, env: NodeJS.ProcessEnv, cwd: string): Config {
  const read = (name: FlagName): Setting | undefined => readSetting(values, env, name);

  // Everything pure first, so a bad value leaves no directory or file behind.
  const host = readHost(read('host'));
  const port = readPort(read('port'));
  const timeoutMs = positiveInteger(read('timeout-ms'), DEFAULT_TIMEOUT_MS, MAX_TIMEOUT_MS);
  const maxOutputChars = positiveInteger(
    read('max-output-chars'),
    DEFAULT_MAX_OUTPUT_CHARS,
    Number.MAX_SAFE_INTEGER,
  );
  const clip = oneOf(read('clip'), CLIP_MODES, 'head');
  const localShells = oneOf(read('local-shells'), ['on', 'off'], 'on') === 'on';
  const database = readDatabaseUrl(read('database'));
  const replicaUrl = readPublicUrl(read('replica-url'));
  const hostGraceMs = positiveInteger(read('host-grace-ms'), DEFAULT_HOST_GRACE_MS, MAX_TIMEOUT_MS);
  const logLevel = oneOf(read('log'), LOG_LEVELS, 'off');
  const controlIdleMs = positiveInteger(
    read('control-idle-ms'),
    DEFAULT_CONTROL_IDLE_MS,
    MAX_TIMEOUT_MS,
  );
  const envPass = readEnvPass(values, env);
  const history = readHistorySettings(read);
  const givenPublicUrl = readPublicUrl(read('public-url'));
  const basePath = readBasePath(read('base-path'), givenPublicUrl);
  const publicUrl = givenPublicUrl === null ? null : new URL(basePath, givenPublicUrl).toString();
  const tls = readTlsSettings(read('tls-cert'), read('tls-key'), cwd);
  const trustProxy = readTrustProxy(read('trust-proxy'));
  const needsHumanAfterMs = positiveInteger(
    read('needs-human-after-ms'),
    DEFAULT_NEEDS_HUMAN_AFTER_MS,
    MAX_NEEDS_HUMAN_AFTER_MS,
  );
  const limits = readConnectionLimits(read);
  const pwshSetting = read('pwsh');
  const pwshPath = pwshSetting === undefined ? undefined : executableFile(pwshSetting, cwd);
  // A per-dialect value is the more specific statement, so it wins whatever its source.
  const dialect = (name: Dialect): DialectSettings => ({
    timeoutMs: positiveInteger(read(`${name}-timeout-ms`), timeoutMs, MAX_TIMEOUT_MS),
    maxOutputChars: positiveInteger(
      read(`${name}-max-output-chars`),
      maxOutputChars,
      Number.MAX_SAFE_INTEGER,
    ),
    clip,
    description: DEFAULT_DESCRIPTIONS[name],
  });
  const dialects = { bash: dialect('bash'), pwsh: dialect('pwsh') };

  const dataDirSetting = read('data-dir') ?? { raw: DEFAULT_DATA_DIR, source: '--data-dir' };
  const dataDir = resolve(cwd, nonEmpty(dataDirSetting));
  const workspaceSetting = read('workspace');
  const workspace =
    workspaceSetting === undefined
      ? resolve(cwd, defaultWorkspace(env))
      : existingDirectory(workspaceSetting, cwd);
  checkWorkspacePlace(dataDir, workspace);
  const sharedWorkspace = readSwitch(values, env, 'shared-workspace');
  const sandbox = oneOf(read('sandbox'), SANDBOX_MODES, 'auto');
  const shellUser = readShellUser(read('shell-user'));
  const resources = readResourceSettings(read);
  const given = givenAdminToken(adminTokenInputs(values, env, cwd));
  const readable = readReadableDirs(values, env, {
    cwd,
    home: env.HOME || homedir(),
    dataDir,
    workspace,
    tmp: tmpdir(),
  });

  ensureDirectory(dataDir, dataDirSetting.source, DATA_DIR_MODE);
  const admin = given ?? storedAdminToken(dataDir);
  if (workspaceSetting === undefined) ensureDirectory(workspace, '--workspace');

  return {
    host,
    port,
    dataDir,
    workspace,
    sharedWorkspace,
    sandbox,
    shellUser,
    ...resources,
    adminToken: admin.token,
    adminTokenSource: admin.source,
    dialects,
    envPass,
    readable,
    pwshPath,
    logLevel,
    controlIdleMs,
    history,
    publicUrl,
    basePath,
    tls,
    trustProxy,
    needsHumanAfterMs,
    spill: readSpillSettings(read),
    limits,
    localShells,
    database,
    replicaUrl,
    hostGraceMs,
  };
}

function readSpillSettings(read: (name: FlagName) => Setting | undefined): SpillSettings {
  const size = (name: FlagName, fallback: number): number =>
    positiveInteger(read(name), fallback, Number.MAX_SAFE_INTEGER, MIN_SPILL_BYTES);
  return {
    maxFileBytes: size('spill-max-file-bytes', DEFAULT_SPILL_MAX_FILE_BYTES),
    maxAgentBytes: size('spill-max-agent-bytes', DEFAULT_SPILL_MAX_AGENT_BYTES),
    maxTotalBytes: size('spill-max-total-bytes', DEFAULT_SPILL_MAX_TOTAL_BYTES),
  };
}

function readHistorySettings(read: (name: FlagName) => Setting | undefined): HistorySettings {
  return {
    recordKeystrokes: oneOf(read('record-keystrokes'), ['off', 'on'], 'off') === 'on',
    recordingMaxFileBytes: positiveInteger(
      read('recording-max-file-bytes'),
      DEFAULT_RECORDING_MAX_FILE_BYTES,
      Number.MAX_SAFE_INTEGER,
      MIN_RECORDING_FILE_BYTES,
    ),
    recordingMaxTotalBytes: positiveInteger(
      read('recording-max-total-bytes'),
      DEFAULT_RECORDING_MAX_TOTAL_BYTES,
      Number.MAX_SAFE_INTEGER,
      MIN_RECORDING_TOTAL_BYTES,
    ),
    recordingMaxAgeDays: positiveInteger(
      read('recording-max-age-days'),
      DEFAULT_RECORDING_MAX_AGE_DAYS,
      MAX_RECORDING_AGE_DAYS,
    ),
    auditMaxRows: positiveInteger(
      read('audit-max-rows'),
      DEFAULT_AUDIT_MAX_ROWS,
      Number.MAX_SAFE_INTEGER,
      MIN_AUDIT_MAX_ROWS,
    ),
  };
}

function parseFlags(argv: readonly string[]): FlagValues {
  let values: FlagValues;
  try {
    values = parseArgs({
      args: [...argv],
      options: parseArgsOptions(),
      strict: true,
      allowPositionals: false,
    }).values;
  } catch (error) {
    // Asking for help wins over a typo elsewhere on the line.
    if (argv.includes('--help') || argv.includes('-h')) throw new HelpRequested(usage());
    throw new ConfigError(parseFlagError(error));
  }
  if (values.help === true) throw new HelpRequested(usage());
  return values;
}

/** A switch: the flag, or its variable set to 1/true/on (0/false/off or unset: off). */
function readSwitch(values: FlagValues, env: NodeJS.ProcessEnv, name: FlagName): boolean {
  if (values[name] === true) return true;
  const variable = envNameOf(name);
  const raw = variable === undefined ? undefined : env[variable];
  if (raw === undefined || raw === '') return false;
  if (/^(1|true|on|yes)$/i.test(raw)) return true;
  if (/^(0|false|off|no)$/i.test(raw)) return false;
  throw new ConfigError(`${variable} must be on or off (got "${raw}")`);
}

/**
 * `--pass-env` (and its former name `--env-pass`) may repeat and each value may list several
 * names separated by commas; flags win over JUMPSEAT_PASS_ENV (and JUMPSEAT_ENV_PASS).
 */
function readEnvPass(values: FlagValues, env: NodeJS.ProcessEnv): string[] {
  const settings: Setting[] = [];
  for (const flag of ['pass-env', 'env-pass'] as const) {
    const given = values[flag];
    if (Array.isArray(given)) {
      for (const raw of given)
        if (typeof raw === 'string') settings.push({ raw, source: `--${flag}` });
    }
  }
  if (settings.length === 0) {
    for (const flag of ['pass-env', 'env-pass'] as const) {
      const setting = readSetting(values, env, flag);
      if (setting !== undefined) settings.push(setting);
    }
  }
  const names = new Set<string>();
  for (const setting of settings) {
    for (const name of setting.raw.split(',').map((part) => part.trim())) {
      if (name === '') continue;
      if (!ENV_NAME.test(name)) {
        throw new ConfigError(
          `${setting.source} must list variable names ${got({ ...setting, raw: name })}`,
        );
      }
      if (name === 'JUMPSEAT_TOKEN') {
        throw new ConfigError(
          `${setting.source} cannot pass JUMPSEAT_TOKEN: the admin token never reaches a shell`,
        );
      }
      names.add(name);
    }
  }
  return [...names];
}

function readShellUser(setting: Setting | undefined): string {
  if (setting === undefined) return DEFAULT_SHELL_USER;
  const wrong = checkShellUserSpec(setting.raw);
  if (wrong !== null) throw new ConfigError(`${setting.source} ${wrong} ${got(setting)}`);
  return setting.raw;
}

/** A token file (flag first, as flags win) or JUMPSEAT_TOKEN; both variables is ambiguous. */
function adminTokenInputs(
  values: FlagValues,
  env: NodeJS.ProcessEnv,
  cwd: string,
): AdminTokenInputs {
  const flagFile = values['token-file'];
  const envToken = env.JUMPSEAT_TOKEN === '' ? undefined : env.JUMPSEAT_TOKEN;
  const envFile = env.JUMPSEAT_TOKEN_FILE === '' ? undefined : env.JUMPSEAT_TOKEN_FILE;
  if (typeof flagFile === 'string') {
    const path = nonEmpty({ raw: flagFile, source: '--token-file' });
    return { tokenFile: { path: resolve(cwd, path), source: '--token-file' } };
  }
  if (envFile !== undefined && envToken !== undefined) {
    throw new ConfigError('set either JUMPSEAT_TOKEN or JUMPSEAT_TOKEN_FILE, not both');
  }
  if (envFile !== undefined) {
    return { tokenFile: { path: resolve(cwd, envFile), source: 'JUMPSEAT_TOKEN_FILE' } };
  }
  return envToken === undefined ? {} : { envToken };
}
