import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  configErrorOf as errorOf,
  fileModeOf as modeOf,
} from '../../test/support/config-errors.ts';
import { DEFAULT_DESCRIPTIONS } from '../tool/contract-text.ts';
import { type Config, loadConfig } from './config.ts';
import { HelpRequested } from './config-error.ts';
import { FLAGS } from './flags.ts';

let root: string;
let dataDir: string;

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'jumpseat-config-'));
  dataDir = join(root, 'data');
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

/** Loads with a throwaway data dir unless the test gives one. */
function load(argv: string[] = [], env: NodeJS.ProcessEnv = {}): Config {
  const withDataDir = argv.includes('--data-dir') || 'JUMPSEAT_DATA_DIR' in env;
  return loadConfig(withDataDir ? argv : ['--data-dir', dataDir, ...argv], env, root);
}

describe('defaults', () => {
  it('serves 127.0.0.1:7400 with the contract defaults for both dialects', () => {
    const config = load();
    expect(config.host).toBe('127.0.0.1');
    expect(config.port).toBe(7400);
    expect(config.logLevel).toBe('off');
    expect(config.envPass).toEqual([]);
    expect(config.history).toEqual({
      recordKeystrokes: false,
      recordingMaxFileBytes: 64 * 1024 * 1024,
      recordingMaxTotalBytes: 1024 * 1024 * 1024,
      recordingMaxAgeDays: 30,
      auditMaxRows: 100_000,
    });
    expect(config.spill).toEqual({
      maxFileBytes: 256 * 1024 * 1024,
      maxAgentBytes: 1024 * 1024 * 1024,
      maxTotalBytes: 4 * 1024 * 1024 * 1024,
    });
    expect(config.dialects).toEqual({
      bash: {
        timeoutMs: 300000,
        maxOutputChars: 16000,
        clip: 'head',
        description: DEFAULT_DESCRIPTIONS.bash,
      },
      pwsh: {
        timeoutMs: 300000,
        maxOutputChars: 16000,
        clip: 'head',
        description: DEFAULT_DESCRIPTIONS.pwsh,
      },
    });
  });

  it('pins the default tool descriptions of TOOL-CONTRACT.md', () => {
    const config = load();
    expect(config.dialects.bash.description).toBe(
      'Run commands in a persistent bash shell. State, including the current directory and exported environment variables, persists across calls for this agent.',
    );
    expect(config.dialects.pwsh.description).toBe(
      'Run commands in a persistent PowerShell shell. State, including the current directory and exported environment variables, persists across calls for this agent.',
    );
  });

  it('keeps state in ./.jumpseat resolved against the working directory, mode 700', () => {
    const config = loadConfig([], {}, root);
    expect(config.dataDir).toBe(join(root, '.jumpseat'));
    expect(modeOf(config.dataDir)).toBe(0o700);
  });

  it('keeps workspaces outside the data dir, under XDG_DATA_HOME, made when missing', () => {
    const config = load([], { XDG_DATA_HOME: join(root, 'xdg') });
    expect(config.workspace).toBe(join(root, 'xdg', 'jumpseat', 'workspaces'));
    expect(statSync(config.workspace).isDirectory()).toBe(true);
    expect(config.workspace.startsWith(dataDir)).toBe(false);
  });

  it('falls back to ~/.local/share/jumpseat/workspaces', () => {
    const config = load([], { HOME: join(root, 'home') });
    expect(config.workspace).toBe(join(root, 'home', '.local', 'share', 'jumpseat', 'workspaces'));
  });

  it('sandboxes by default, on a network of its own, with every resource bounded', () => {
    const config = load();
    expect([config.sandbox, config.network, config.maxProcesses, config.maxMemoryBytes]).toEqual([
      'auto',
      'on',
      1024,
      4 * 1024 ** 3,
    ]);
    expect([config.tmpSizeBytes, config.cpuWeight, config.cpuMax]).toEqual([
      1024 ** 3,
      100,
      undefined,
    ]);
    expect(config.workspaceQuotaBytes).toBe(10 * 1024 ** 3);
    expect(config.sharedWorkspace).toBe(false);
  });
});

describe('flags and variables', () => {
  const cases: [
    flag: string,
    env: string,
    value: string,
    read: (c: Config) => unknown,
    want: unknown,
  ][] = [
    ['--host', 'JUMPSEAT_HOST', '0.0.0.0', (c) => c.host, '0.0.0.0'],
    ['--port', 'JUMPSEAT_PORT', '0', (c) => c.port, 0],
    [
      '--public-url',
      'JUMPSEAT_PUBLIC_URL',
      'https://js.example.test/team',
      (c) => c.publicUrl,
      'https://js.example.test/team/',
    ],
    ['--base-path', 'JUMPSEAT_BASE_PATH', 'jumpseat', (c) => c.basePath, '/jumpseat/'],
    [
      '--needs-human-after-ms',
      'JUMPSEAT_NEEDS_HUMAN_AFTER_MS',
      '500',
      (c) => c.needsHumanAfterMs,
      500,
    ],
    ['--port', 'JUMPSEAT_PORT', '65535', (c) => c.port, 65535],
    ['--timeout-ms', 'JUMPSEAT_TIMEOUT_MS', '1500', (c) => c.dialects.pwsh.timeoutMs, 1500],
    [
      '--max-output-chars',
      'JUMPSEAT_MAX_OUTPUT_CHARS',
      '10',
      (c) => c.dialects.bash.maxOutputChars,
      10,
    ],
    ['--clip', 'JUMPSEAT_CLIP', 'head-tail', (c) => c.dialects.pwsh.clip, 'head-tail'],
    ['--bash-timeout-ms', 'JUMPSEAT_BASH_TIMEOUT_MS', '7', (c) => c.dialects.bash.timeoutMs, 7],
    ['--pwsh-timeout-ms', 'JUMPSEAT_PWSH_TIMEOUT_MS', '8', (c) => c.dialects.pwsh.timeoutMs, 8],
    [
      '--bash-max-output-chars',
      'JUMPSEAT_BASH_MAX_OUTPUT_CHARS',
      '9',
      (c) => c.dialects.bash.maxOutputChars,
      9,
    ],
    [
      '--pwsh-max-output-chars',
      'JUMPSEAT_PWSH_MAX_OUTPUT_CHARS',
      '11',
      (c) => c.dialects.pwsh.maxOutputChars,
      11,
    ],
    [
      '--env-pass',
      'JUMPSEAT_ENV_PASS',
      'AWS_KEY,GH_TOKEN',
      (c) => c.envPass,
      ['AWS_KEY', 'GH_TOKEN'],
    ],
    ['--log', 'JUMPSEAT_LOG', 'info', (c) => c.logLevel, 'info'],
    [
      '--record-keystrokes',
      'JUMPSEAT_RECORD_KEYSTROKES',
      'on',
      (c) => c.history.recordKeystrokes,
      true,
    ],
    [
      '--recording-max-file-bytes',
      'JUMPSEAT_RECORDING_MAX_FILE_BYTES',
      '65536',
      (c) => c.history.recordingMaxFileBytes,
      65536,
    ],
    [
      '--recording-max-total-bytes',
      'JUMPSEAT_RECORDING_MAX_TOTAL_BYTES',
      '1000000',
      (c) => c.history.recordingMaxTotalBytes,
      1000000,
    ],
    [
      '--recording-max-age-days',
      'JUMPSEAT_RECORDING_MAX_AGE_DAYS',
      '7',
      (c) => c.history.recordingMaxAgeDays,
      7,
    ],
    ['--sandbox', 'JUMPSEAT_SANDBOX', 'off', (c) => c.sandbox, 'off'],
    ['--network', 'JUMPSEAT_NETWORK', 'off', (c) => c.network, 'off'],
    ['--network', 'JUMPSEAT_NETWORK', 'host', (c) => c.network, 'host'],
    ['--max-memory', 'JUMPSEAT_MAX_MEMORY', 'off', (c) => c.maxMemoryBytes, undefined],
    ['--tmp-size', 'JUMPSEAT_TMP_SIZE', '8MiB', (c) => c.tmpSizeBytes, 8 * 1024 ** 2],
    ['--cpu-weight', 'JUMPSEAT_CPU_WEIGHT', '50', (c) => c.cpuWeight, 50],
    ['--cpu-max', 'JUMPSEAT_CPU_MAX', '1.5', (c) => c.cpuMax, 1.5],
    [
      '--workspace-quota',
      'JUMPSEAT_WORKSPACE_QUOTA',
      '20MiB',
      (c) => c.workspaceQuotaBytes,
      20 * 1024 ** 2,
    ],
    [
      '--workspace-quota',
      'JUMPSEAT_WORKSPACE_QUOTA',
      'off',
      (c) => c.workspaceQuotaBytes,
      undefined,
    ],
    ['--max-processes', 'JUMPSEAT_MAX_PROCESSES', '64', (c) => c.maxProcesses, 64],
    ['--max-memory', 'JUMPSEAT_MAX_MEMORY', '512M', (c) => c.maxMemoryBytes, 512 * 1024 ** 2],
    ['--max-memory', 'JUMPSEAT_MAX_MEMORY', '2GiB', (c) => c.maxMemoryBytes, 2 * 1024 ** 3],
    ['--live-per-token', 'JUMPSEAT_LIVE_PER_TOKEN', '5', (c) => c.limits.livePerToken, 5],
    ['--live-per-shell', 'JUMPSEAT_LIVE_PER_SHELL', '6', (c) => c.limits.livePerShell, 6],
    [
      '--input-pending-max-bytes',
      'JUMPSEAT_INPUT_PENDING_MAX_BYTES',
      '4096',
      (c) => c.limits.inputPendingMaxBytes,
      4096,
    ],
    [
      '--mcp-sessions-per-token',
      'JUMPSEAT_MCP_SESSIONS_PER_TOKEN',
      '7',
      (c) => c.limits.mcpSessionsPerToken,
      7,
    ],
  ];

  it('bounds live connections, pending keys and MCP sessions by default, and refuses nonsense', () => {
    expect(load().limits).toEqual({
      livePerToken: 32,
      livePerShell: 64,
      inputPendingMaxBytes: 262_144,
      mcpSessionsPerToken: 64,
    });
    expect(() => load(['--live-per-token', '0'])).toThrow(
      '--live-per-token must be a positive integer (got "0")',
    );
    expect(() => load(['--input-pending-max-bytes', '100'])).toThrow(
      '--input-pending-max-bytes must be at least 1024 (got "100")',
    );
  });

  it.each(cases)('%s sets the value', (flag, _env, value, read, want) => {
    expect(read(load([flag, value]))).toEqual(want);
  });

  it('refuses a workspace root inside the data dir, or one that holds it, links followed', () => {
    const within = join(dataDir, 'workspaces');
    mkdirSync(within, { recursive: true });
    expect(() => load(['--workspace', within])).toThrow(
      `--workspace: ${within} is inside the data dir ${dataDir}, which every shell's sandbox hides; put the workspaces beside the data dir`,
    );
    expect(() => load(['--workspace', dataDir])).toThrow('is inside the data dir');
    // The same place reached through a link is the same place.
    symlinkSync(dataDir, join(root, 'alias'));
    expect(() => load(['--workspace', join(root, 'alias', 'workspaces')])).toThrow(
      'is inside the data dir',
    );
    const holder = join(root, 'agents');
    mkdirSync(holder);
    const inner = join(holder, '.jumpseat');
    expect(() => load(['--data-dir', inner, '--workspace', holder])).toThrow(
      `--data-dir: ${inner} is inside the workspace root ${holder}, where agents' shells could reach the server's tokens; put the data dir beside the workspaces`,
    );
    // Beside each other is fine.
    mkdirSync(join(root, 'beside'));
    expect(load(['--workspace', join(root, 'beside')]).workspace).toBe(join(root, 'beside'));
  });

  it('--shared-workspace and JUMPSEAT_SHARED_WORKSPACE=1 share one directory', () => {
    expect(load(['--shared-workspace']).sharedWorkspace).toBe(true);
    expect(load([], { JUMPSEAT_SHARED_WORKSPACE: '1' }).sharedWorkspace).toBe(true);
    expect(() => load([], { JUMPSEAT_SHARED_WORKSPACE: 'maybe' })).toThrow(
      'JUMPSEAT_SHARED_WORKSPACE must be on or off (got "maybe")',
    );
  });

  it.each([
    ['--sandbox', 'docker', '--sandbox must be one of "auto", "bwrap", "off" (got "docker")'],
    ['--max-processes', '3', '--max-processes must be at least 16 (got "3")'],
    ['--max-memory', 'lots', '--max-memory must be a size such as 512M or 2G (got "lots")'],
    ['--max-memory', '1M', '--max-memory must be at least 67108864 bytes (got "1M")'],
    ['--network', 'yes', '--network must be one of "on", "off", "host" (got "yes")'],
    ['--tmp-size', 'big', '--tmp-size must be a size such as 512M or 2G (got "big")'],
    ['--tmp-size', '4K', '--tmp-size must be at least 1048576 bytes (got "4K")'],
    ['--cpu-weight', '0', '--cpu-weight must be a positive integer (got "0")'],
    ['--cpu-weight', '20000', '--cpu-weight must be at most 10000 (got "20000")'],
    [
      '--cpu-max',
      'half',
      '--cpu-max must be a number of CPUs from 0.01 to 4096, such as 1.5, or off (got "half")',
    ],
    [
      '--cpu-max',
      '0',
      '--cpu-max must be a number of CPUs from 0.01 to 4096, such as 1.5, or off (got "0")',
    ],
    ['--workspace-quota', '1M', '--workspace-quota must be at least 16777216 bytes (got "1M")'],
  ])('%s %s is refused with a message naming it', (flag, value, message) => {
    expect(() => load([flag, value])).toThrow(message);
  });

  it.each(cases)('%s falls back to %s', (_flag, env, value, read, want) => {
    expect(read(load([], { [env]: value }))).toEqual(want);
  });

  it.each(cases)('%s wins over %s', (flag, env, value, read, want) => {
    expect(read(load([flag, value], { [env]: 'not valid for anything' }))).toEqual(want);
  });

  it('accepts --flag=value as well as --flag value', () => {
    expect(load(['--port=8123']).port).toBe(8123);
  });

  it('treats an empty variable as unset', () => {
    expect(load([], { JUMPSEAT_PORT: '', JUMPSEAT_TOKEN: '' }).port).toBe(7400);
  });

  it('lets a per-dialect setting override the general one, whatever its source', () => {
    const config = load(['--timeout-ms', '1000', '--max-output-chars', '50'], {
      JUMPSEAT_PWSH_TIMEOUT_MS: '2000',
      JUMPSEAT_BASH_MAX_OUTPUT_CHARS: '60',
    });
    expect(config.dialects.bash).toMatchObject({ timeoutMs: 1000, maxOutputChars: 60 });
    expect(config.dialects.pwsh).toMatchObject({ timeoutMs: 2000, maxOutputChars: 50 });
  });

  it('reads repeated --env-pass flags and comma lists, without duplicates', () => {
    const config = load(['--env-pass', 'A_KEY, B_TOKEN', '--env-pass=A_KEY', '--env-pass', 'C,']);
    expect(config.envPass).toEqual(['A_KEY', 'B_TOKEN', 'C']);
  });

  it('reads --pass-env like its former name --env-pass, both together', () => {
    const config = load(['--pass-env', 'DATABASE_URL', '--env-pass', 'GH_PAT', '--pass-env=X,Y']);
    expect(config.envPass).toEqual(['DATABASE_URL', 'X', 'Y', 'GH_PAT']);
    expect(load([], { JUMPSEAT_PASS_ENV: 'A,B' }).envPass).toEqual(['A', 'B']);
  });

  it('reads --shell-user and refuses root or a malformed one', () => {
    expect(load([]).shellUser).toBe('jumpseat-shell');
    expect(load(['--shell-user', '4000:4000']).shellUser).toBe('4000:4000');
    expect(load([], { JUMPSEAT_SHELL_USER: 'agents' }).shellUser).toBe('agents');
    expect(errorOf(() => load(['--shell-user', '0'])).message).toBe(
      '--shell-user must not be root (uid or gid 0) (got "0")',
    );
    expect(errorOf(() => load(['--shell-user', 'a b'])).message).toBe(
      '--shell-user must be a user name or UID[:GID] (got "a b")',
    );
  });

  it('resolves --data-dir and --workspace against the working directory', () => {
    mkdirSync(join(root, 'ws'));
    const config = loadConfig(['--data-dir', 'd', '--workspace', 'ws'], {}, root);
    expect(config.dataDir).toBe(join(root, 'd'));
    expect(config.workspace).toBe(join(root, 'ws'));
  });

  it('uses an explicit workspace as it is and creates no default one', () => {
    const workspace = join(root, 'mine');
    mkdirSync(workspace);
    const config = load(['--workspace', workspace]);
    expect(config.workspace).toBe(workspace);
    expect(existsSync(join(dataDir, 'workspace'))).toBe(false);
  });

  it('documents every flag in --help, and --help creates nothing', () => {
    let help: HelpRequested | undefined;
    try {
      load(['--help', '--port', 'nonsense']);
    } catch (error) {
      if (error instanceof HelpRequested) help = error;
    }
    expect(help).toBeDefined();
    for (const name of Object.keys(FLAGS)) expect(help?.usage).toContain(`--${name}`);
    expect(existsSync(dataDir)).toBe(false);
  });
});

describe('invalid values', () => {
  const cases: [argv: string[], env: NodeJS.ProcessEnv, message: string][] = [
    [['--timeout-ms', 'abc'], {}, '--timeout-ms must be a positive integer (got "abc")'],
    [['--timeout-ms', '0'], {}, '--timeout-ms must be a positive integer (got "0")'],
    [['--timeout-ms=-5'], {}, '--timeout-ms must be a positive integer (got "-5")'],
    [['--timeout-ms', '1.5'], {}, '--timeout-ms must be a positive integer (got "1.5")'],
    [['--timeout-ms', '1e3'], {}, '--timeout-ms must be a positive integer (got "1e3")'],
    [
      ['--timeout-ms', '2147483648'],
      {},
      '--timeout-ms must be at most 2147483647 (got "2147483648")',
    ],
    [[], { JUMPSEAT_TIMEOUT_MS: 'x' }, 'JUMPSEAT_TIMEOUT_MS must be a positive integer (got "x")'],
    [['--max-output-chars', '0'], {}, '--max-output-chars must be a positive integer (got "0")'],
    [['--bash-timeout-ms', ' 5'], {}, '--bash-timeout-ms must be a positive integer (got " 5")'],
    [
      ['--pwsh-max-output-chars', 'lots'],
      {},
      '--pwsh-max-output-chars must be a positive integer (got "lots")',
    ],
    [['--port', '65536'], {}, '--port must be an integer from 0 to 65535 (got "65536")'],
    [
      ['--public-url', 'js.example.test'],
      {},
      '--public-url must be an http:// or https:// URL (got "js.example.test")',
    ],
    [
      [],
      { JUMPSEAT_PUBLIC_URL: 'https://js.example.test/?a=1' },
      'JUMPSEAT_PUBLIC_URL must not carry a user, a query or a fragment (got "https://js.example.test/?a=1")',
    ],
    [
      ['--needs-human-after-ms', '0'],
      {},
      '--needs-human-after-ms must be a positive integer (got "0")',
    ],
    [['--port=-1'], {}, '--port must be an integer from 0 to 65535 (got "-1")'],
    [['--port', 'http'], {}, '--port must be an integer from 0 to 65535 (got "http")'],
    [
      [],
      { JUMPSEAT_PORT: '7400x' },
      'JUMPSEAT_PORT must be an integer from 0 to 65535 (got "7400x")',
    ],
    [['--clip', 'tail'], {}, '--clip must be one of "head", "head-tail" (got "tail")'],
    [
      ['--log', 'loud'],
      {},
      '--log must be one of "off", "fatal", "error", "warn", "info", "debug", "trace" (got "loud")',
    ],
    [
      ['--record-keystrokes', 'yes'],
      {},
      '--record-keystrokes must be one of "off", "on" (got "yes")',
    ],
    [
      ['--recording-max-file-bytes', '100'],
      {},
      '--recording-max-file-bytes must be at least 4096 (got "100")',
    ],
    [
      [],
      { JUMPSEAT_RECORDING_MAX_AGE_DAYS: '0' },
      'JUMPSEAT_RECORDING_MAX_AGE_DAYS must be a positive integer (got "0")',
    ],
    [['--host', ''], {}, '--host must be a host name or IP address (got "")'],
    [['--data-dir', ''], {}, '--data-dir must not be empty'],
    [['--env-pass', 'A,1B'], {}, '--env-pass must list variable names (got "1B")'],
    [
      ['--env-pass', 'JUMPSEAT_TOKEN'],
      {},
      '--env-pass cannot pass JUMPSEAT_TOKEN: the admin token never reaches a shell',
    ],
    [['--nope'], {}, 'unknown flag --nope (see --help)'],
    [['-x'], {}, 'unknown flag -x (see --help)'],
    [['serve'], {}, 'unexpected argument "serve": jumpseat takes only flags (see --help)'],
    [['--port'], {}, '--port needs a value'],
    [
      ['--port', '--host', 'x'],
      {},
      '--port needs a value (write --port=VALUE for one starting with "-")',
    ],
    [['--help=yes'], {}, '--help does not take a value'],
    [
      ['--token=js_secret'],
      {},
      '--token is not accepted: every process can read command lines; use JUMPSEAT_TOKEN or --token-file',
    ],
    [[], { JUMPSEAT_TOKEN: 'has space' }, 'JUMPSEAT_TOKEN must be printable ASCII without spaces'],
  ];

  it.each(cases)('%j %j → %s', (argv, env, message) => {
    const error = errorOf(() => load(argv, env));
    expect(error.message).toBe(message);
    expect(error.message).not.toContain('\n');
  });

  it('never echoes a token given as a flag', () => {
    expect(errorOf(() => load(['--token=js_secret'])).message).not.toContain('js_secret');
  });

  it('creates nothing when a value is invalid', () => {
    errorOf(() => load(['--timeout-ms', 'abc']));
    expect(existsSync(dataDir)).toBe(false);
  });

  it('refuses a workspace that does not exist', () => {
    const missing = join(root, 'missing');
    expect(errorOf(() => load(['--workspace', missing])).message).toBe(
      `--workspace "${missing}" does not exist`,
    );
    expect(existsSync(dataDir)).toBe(false);
  });

  it('refuses a workspace that is a file, naming the variable it came from', () => {
    const file = join(root, 'file');
    writeFileSync(file, '');
    expect(errorOf(() => load([], { JUMPSEAT_WORKSPACE: file })).message).toBe(
      `JUMPSEAT_WORKSPACE "${file}" is not a directory`,
    );
  });

  it('refuses a data dir that is a file', () => {
    const file = join(root, 'file');
    writeFileSync(file, '');
    expect(errorOf(() => load(['--data-dir', file])).message).toBe(
      `--data-dir "${file}" is not a directory`,
    );
  });
});

describe('--base-path with --public-url', () => {
  it("takes the public URL's path, or completes an origin-only public URL", () => {
    const fromUrl = load(['--public-url', 'https://tools.example/jumpseat']);
    expect([fromUrl.basePath, fromUrl.publicUrl]).toEqual([
      '/jumpseat/',
      'https://tools.example/jumpseat/',
    ]);
    const both = load(['--public-url', 'https://tools.example', '--base-path', '/jumpseat/']);
    expect([both.basePath, both.publicUrl]).toEqual([
      '/jumpseat/',
      'https://tools.example/jumpseat/',
    ]);
    expect(load().basePath).toBe('/');
  });
});
