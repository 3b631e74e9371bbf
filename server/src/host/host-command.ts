/**
 * `jumpseat host --join URL`: runs the engine on this machine (PTYs, the launcher and
 * sandbox, screen models, spill files) for the shells its control plane places here. Its
 * own flags say where to join and what it is; every other flag is the engine's, as
 * `jumpseat serve` reads it (`--sandbox`, `--network`, `--workspace`, `--data-dir`, `--pwsh`…).
 * The host token comes from JUMPSEAT_TOKEN or `--token-file`, never the command line.
 */
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { parseLabel } from '../../../shared/src/labels.ts';
import { DEFAULT_HOST_GRACE_MS } from '../../../shared/src/link.ts';
import { HOST_NAME_REGEX } from '../../../shared/src/vocabulary.ts';
import { loadConfig } from '../config/config.ts';
import { ConfigError, HelpRequested } from '../config/config-error.ts';
import { parseFlagError } from '../config/parse-flag-error.ts';
import { raiseDescriptorLimit } from '../ops/descriptor-limit.ts';
import { PACKAGE_VERSION } from '../package-root.ts';
import { HostLink } from './host-link.ts';
import { type LinkProxy, linkProxy } from './link-proxy.ts';

const EXIT_CONFIG = 2;
const EXIT_FAILURE = 1;
/** A host that cannot end its shells this fast is stuck; leave rather than hang. */
const SHUTDOWN_GRACE_MS = 10_000;

const HOST_OPTIONS = {
  join: { type: 'string' },
  name: { type: 'string' },
  label: { type: 'string', multiple: true },
  'max-shells': { type: 'string' },
  'host-grace-ms': { type: 'string' },
  'token-file': { type: 'string' },
  proxy: { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const;

export const HOST_HELP = `Usage: jumpseat host --join URL [flags] [engine flags]

Runs shells on this machine for the jumpseat control plane at URL. The host dials out over
one WebSocket (no inbound port), keeps its shells through a link outage of up to the grace
period, and resumes their output where the control plane left off.

  --join URL            the control plane (http:// or https://)        env JUMPSEAT_JOIN
  --name NAME           this host's name; must be its token's (default: the token's name)
                                                                       env JUMPSEAT_HOST_NAME
  --label KEY=VALUE     a placement label; repeatable     env JUMPSEAT_LABELS (k=v,k=v)
  --max-shells N        live shells at most (what the open-file limit allows)
                                                                       env JUMPSEAT_MAX_SHELLS
  --host-grace-ms MS    how long shells outlive a lost link before the control plane
                        says otherwise (60000)                 env JUMPSEAT_HOST_GRACE_MS
  --token-file FILE     file holding the host token (else JUMPSEAT_TOKEN)
  --proxy URL|off       the HTTP proxy to dial through, http://[USER:PASSWORD@]HOST:PORT
                        (wins over the environment); off: dial directly
                        (default: HTTPS_PROXY for an https:// control plane, HTTP_PROXY
                        for http://, else ALL_PROXY, unless NO_PROXY names it)

Behind a proxy, the link is one CONNECT tunnel to the control plane's host and port (TLS
inside it for https://); credentials in the proxy URL go as Proxy-Authorization basic and
are never printed. Put a password in HTTPS_PROXY, not --proxy: any user can read a command
line in ps. A proxy that refuses is retried like any outage.

The engine's flags are those of "jumpseat serve": --sandbox, --network, --max-memory,
--max-processes, --workspace, --data-dir, --pwsh, --timeout-ms, ...
`;

export interface HostSettings {
  readonly join: string;
  readonly token: string;
  readonly name: string | undefined;
  readonly labels: Record<string, string>;
  readonly maxShells: number | undefined;
  readonly graceMs: number;
  /** `--proxy`: a proxy URL, `off`, or undefined for the environment's (see link-proxy.ts). */
  readonly proxy: string | undefined;
  /** The engine's own flags, for loadConfig. */
  readonly engineArgs: string[];
}

/** Splits the host's own flags from the engine's and checks them. */
export function readHostSettings(argv: readonly string[], env: NodeJS.ProcessEnv): HostSettings {
  const own: string[] = [];
  const engine: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] as string;
    const flag = /^--([^=]+)/.exec(arg)?.[1];
    const isOwn =
      arg === '-h' || (flag !== undefined && Object.hasOwn(HOST_OPTIONS, flag) && flag !== 'help');
    if (arg === '--help' || arg === '-h') throw new HelpRequested(HOST_HELP);
    const target = isOwn ? own : engine;
    target.push(arg);
    // A flag's value follows it unless given with "=" (or it is a switch of the engine's).
    const next = argv[i + 1];
    if (!arg.includes('=') && next !== undefined && !next.startsWith('--') && flag !== undefined) {
      target.push(next);
      i++;
    }
  }
  let values: ReturnType<typeof parseArgs<{ options: typeof HOST_OPTIONS }>>['values'];
  try {
    values = parseArgs({ args: own, options: HOST_OPTIONS, strict: true }).values;
  } catch (error) {
    throw new ConfigError(parseFlagError(error));
  }
  const join = values.join ?? env.JUMPSEAT_JOIN;
  if (join === undefined || join === '') {
    throw new ConfigError('--join URL (or JUMPSEAT_JOIN) is required: the control plane to join');
  }
  try {
    const url = new URL(join);
    if (!['http:', 'https:', 'ws:', 'wss:'].includes(url.protocol)) throw new Error('scheme');
  } catch {
    throw new ConfigError(`--join ${JSON.stringify(join)} is not an http:// or https:// URL`);
  }
  const name = values.name ?? (env.JUMPSEAT_HOST_NAME || undefined);
  if (name !== undefined && !HOST_NAME_REGEX.test(name)) {
    throw new ConfigError(`--name ${JSON.stringify(name)} is not a valid host name`);
  }
  const labels: Record<string, string> = {};
  const labelTexts = values.label ?? (env.JUMPSEAT_LABELS?.split(',').filter(Boolean) || []);
  for (const text of labelTexts) {
    const label = parseLabel(text);
    if ('error' in label) throw new ConfigError(`--label: ${label.error}`);
    labels[label.key] = label.value;
  }
  return {
    join,
    token: hostToken(values['token-file'] ?? env.JUMPSEAT_TOKEN_FILE, env),
    name,
    labels,
    maxShells: optionalPositive('--max-shells', values['max-shells'] ?? env.JUMPSEAT_MAX_SHELLS),
    graceMs:
      optionalPositive('--host-grace-ms', values['host-grace-ms'] ?? env.JUMPSEAT_HOST_GRACE_MS) ??
      DEFAULT_HOST_GRACE_MS,
    proxy: values.proxy,
    engineArgs: engine,
  };
}

function optionalPositive(flag: string, raw: string | undefined): number | undefined {
  if (raw === undefined || raw === '') return undefined;
  const value = Number(raw);
  if (!Number.isSafeInteger(value) || value < 1) {
    throw new ConfigError(`${flag} must be a positive integer, not ${JSON.stringify(raw)}`);
  }
  return value;
}

function hostToken(file: string | undefined, env: NodeJS.ProcessEnv): string {
  if (file !== undefined && file !== '') {
    try {
      return readFileSync(file, 'utf8').trim();
    } catch (error) {
      throw new ConfigError(
        `--token-file ${JSON.stringify(file)} cannot be read (${String(error)})`,
      );
    }
  }
  const token = env.JUMPSEAT_TOKEN;
  if (token === undefined || token === '') {
    throw new ConfigError(
      'a host token is required: JUMPSEAT_TOKEN or --token-file (mint one with "jumpseat token create --role host --name NAME")',
    );
  }
  return token;
}

function fail(message: string, exitCode: number): never {
  process.stderr.write(`jumpseat host: ${message}\n`);
  process.exit(exitCode);
}

/** Runs the host until a signal ends it (its shells end with it). */
export async function runHost(argv: readonly string[]): Promise<void> {
  let settings: HostSettings;
  let config: ReturnType<typeof loadConfig>;
  let proxy: LinkProxy | undefined;
  try {
    settings = readHostSettings(argv, process.env);
    proxy = linkProxy(settings.join, settings.proxy);
    // The engine's settings, read as the server reads them; the host token stands in for the
    // admin token the server's configuration wants (a host serves no HTTP, so it is unused).
    config = loadConfig(settings.engineArgs, {
      ...withoutTokenSettings(process.env),
      JUMPSEAT_TOKEN: settings.token,
    });
  } catch (error) {
    if (error instanceof HelpRequested) {
      process.stdout.write(
        error.usage.startsWith('Usage: jumpseat host') ? error.usage : HOST_HELP,
      );
      process.exit(0);
    }
    if (error instanceof ConfigError) fail(error.message, EXIT_CONFIG);
    throw error;
  } finally {
    // Read once; shells must never inherit it.
    delete process.env.JUMPSEAT_TOKEN;
  }
  raiseDescriptorLimit();
  const { createToolService } = await import('../tool/create-tool-service.ts');
  const tools = createToolService(config, {
    ...(settings.maxShells === undefined ? {} : { maxShells: settings.maxShells }),
  });
  await tools.placement.launcher.sweepLeftovers();
  tools.privateDirs.sweep();
  const { HostShells } = await import('./host-shells.ts');
  const link = new HostLink({
    join: settings.join,
    token: settings.token,
    identity: {
      name: settings.name,
      labels: settings.labels,
      maxShells: tools.maxShells,
      dialects: tools.dialects(),
      engineVersion: PACKAGE_VERSION,
    },
    graceMs: settings.graceMs,
    proxy,
    log: (line) => process.stderr.write(`jumpseat host: ${line}\n`),
    fatal: (message) => {
      process.stderr.write(`jumpseat host: ${message}\n`);
      void stop(EXIT_FAILURE);
    },
  });
  const shells = new HostShells(tools, config.workspace, link);
  const { HostViewers } = await import('./host-viewers.ts');
  const viewers = new HostViewers(
    tools.registry,
    {
      controlIdleMs: config.controlIdleMs,
      inputPendingMaxBytes: config.limits.inputPendingMaxBytes,
    },
    config.limits.livePerShell,
    link,
  );
  let stopping = false;
  const stop = async (status: number): Promise<void> => {
    if (stopping) process.exit(EXIT_FAILURE);
    stopping = true;
    setTimeout(
      () => fail('stopping took too long; exiting anyway', EXIT_FAILURE),
      SHUTDOWN_GRACE_MS,
    ).unref();
    link.stop();
    viewers.close();
    shells.dispose();
    await tools.close();
    process.exit(status);
  };
  process.on('SIGINT', () => void stop(0));
  process.on('SIGTERM', () => void stop(0));
  link.start(shells, viewers);
  const via = proxy === undefined ? '' : ` through the proxy ${proxy.shown}`;
  process.stdout.write(
    `jumpseat host joining ${settings.join}${via} (shells up to ${tools.maxShells})\n`,
  );
}

/** The server's token settings are the host's here; the host reads its token itself. */
function withoutTokenSettings(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const { JUMPSEAT_TOKEN_FILE: _file, JUMPSEAT_TOKEN: _token, ...rest } = env;
  return rest;
}
