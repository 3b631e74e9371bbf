/**
 * A sandbox's network (`--network`): `on` gives each sandbox a network namespace of its own
 * with egress through `pasta` (Debian's `passt` package), and nothing of the host's loopback,
 * no other sandbox's listeners and no abstract unix sockets of anyone else (those are per
 * network namespace); `off` leaves the namespace with loopback only; `host` shares the host's.
 *
 * pasta is attached from outside once bubblewrap has made the namespace, and the shell's first
 * call waits for it. It forwards nothing inward (`-t none -u none`), forwards nothing from the
 * namespace's loopback to the host's (`-T none -U none`) and does not map the gateway address
 * to the host (`--no-map-gw`), so the only way out is a real connection to a real address.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, readlinkSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SERVER_PID_VARIABLE, startPastaReaper } from './pasta-reaper.ts';
import { hostPrelude } from './prelude.ts';

export const NETWORK_MODES = ['on', 'off', 'host'] as const;
export type NetworkMode = (typeof NETWORK_MODES)[number];

/** Set in pasta's environment, `<run key>`: how the next start finds one a killed run left. */
export const NETWORK_TAG_VARIABLE = 'JUMPSEAT_SANDBOX_NETWORK';
/** The sandbox's namespace exists within milliseconds of bwrap starting; past this it failed. */
const NAMESPACE_WAIT_MS = 5000;
/** How often the sandbox's first process is looked for while bwrap sets up. */
const NAMESPACE_POLL_MS = 2;
/** pasta configures the namespace and goes to the background in tens of ms; past this it hangs. */
const PASTA_START_TIMEOUT_MS = 10_000;
/** How deep below the PTY's process the sandbox's first process sits (prelude, bwrap, init). */
const MAX_SANDBOX_DEPTH = 3;
/** Tries of pasta on a namespace not open to it yet, and the pause between them (attachNetwork). */
const PASTA_ATTEMPTS = 20;
const PASTA_RETRY_MS = 25;

const PASTA_OPTIONS = [
  '--config-net',
  '--quiet',
  '--no-map-gw',
  ...['-t', 'none', '-u', 'none', '-T', 'none', '-U', 'none'],
  // Its DHCP, NDP and router advertisements serve VMs; --config-net sets the address itself.
  ...['--no-dhcp', '--no-ndp', '--no-dhcpv6', '--no-ra'],
];

/** A running pasta for one sandbox. */
export interface NetworkAttachment {
  /** pasta's daemon. */
  readonly pid: number;
  /** Ends pasta (idempotent); the namespace goes with the sandbox's last process. */
  stop(): void;
}

export interface PastaOptions {
  readonly pasta: string;
  /**
   * For a server that is not root: `unshare`, which makes the sandbox's network namespace
   * (and a user namespace that owns it) before bubblewrap starts, so that pasta can enter it.
   * Made by bwrap itself, the namespace belongs to the first of the two user namespaces bwrap
   * makes for `--dev`, which no process stays in: pasta, without privileges on the host,
   * could not enter it ("Couldn't switch to pasta namespaces") and the shell had no egress.
   * null for root, who may enter any namespace.
   */
  readonly unshare: string | null;
  readonly runKey: string;
}

/**
 * `command` (bubblewrap's) in a network namespace of its own, with the user namespace that owns
 * it, the server's uid mapped to itself: what pasta enters (see PastaOptions.unshare).
 */
export function ownNetworkPrelude(unshare: string, command: readonly string[]): string[] {
  return [unshare, '--user', '--map-current-user', '--net', '--', ...command];
}

/**
 * Attaches pasta to the network namespace of the sandbox below `ptyPid`; it joins the shell's
 * cgroups (so a reset or the next start's sweep ends it with the shell). Rejects with the
 * reason when the namespace never appears or pasta fails.
 */
export async function attachNetwork(
  options: PastaOptions,
  ptyPid: number,
  cgroupProcFiles: readonly string[],
): Promise<NetworkAttachment> {
  return attachTo(options, await sandboxProcess(ptyPid), cgroupProcFiles);
}

/** pasta attached to the network namespace (and user namespace) of process `target`. */
export async function attachTo(
  options: PastaOptions,
  target: number,
  cgroupProcFiles: readonly string[],
): Promise<NetworkAttachment> {
  // bubblewrap's child is in the new namespace before it has dropped its privileges; until
  // then pasta (which keeps few capabilities of its own) may not open the namespace of a
  // process more privileged than itself. That passes within milliseconds: tried again.
  for (let attempt = 1; ; attempt++) {
    try {
      return await startPasta(options, target, cgroupProcFiles);
    } catch (error) {
      const early = /Couldn't open (network|user) namespace/.test(String(error));
      if (!early || attempt >= PASTA_ATTEMPTS || !existsSync(`/proc/${target}`)) throw error;
      await new Promise((resolve) => setTimeout(resolve, PASTA_RETRY_MS));
    }
  }
}

/** The first process below `ptyPid` in a network namespace other than the server's. */
async function sandboxProcess(ptyPid: number): Promise<number> {
  const own = readlinkSync('/proc/self/ns/net');
  const deadline = Date.now() + NAMESPACE_WAIT_MS;
  for (;;) {
    const found = findInOtherNamespace(ptyPid, own);
    if (found !== null) return found;
    if (Date.now() > deadline) throw new Error('the sandbox made no network namespace');
    await new Promise((resolve) => setTimeout(resolve, NAMESPACE_POLL_MS));
  }
}

function findInOtherNamespace(root: number, own: string): number | null {
  let level = [root];
  for (let depth = 0; depth <= MAX_SANDBOX_DEPTH && level.length > 0; depth++) {
    const next: number[] = [];
    for (const pid of level) {
      const ns = safeReadlink(`/proc/${pid}/ns/net`);
      // A namespace made by unshare is entered once its user namespace maps the server's uid.
      if (ns !== null && ns !== own && hasUidMap(pid)) return pid;
      next.push(...childrenOf(pid));
    }
    level = next;
  }
  return null;
}

/** Whether the user namespace of `pid` maps any uid yet (unshare writes it after unsharing). */
function hasUidMap(pid: number): boolean {
  try {
    return readFileSync(`/proc/${pid}/uid_map`, 'utf8').trim() !== '';
  } catch {
    return false;
  }
}

/** Whether process `pid` is in the server's own user namespace. */
function ownUserNamespace(pid: number): boolean {
  return safeReadlink(`/proc/${pid}/ns/user`) === safeReadlink('/proc/self/ns/user');
}

function startPasta(
  options: PastaOptions,
  target: number,
  cgroupProcFiles: readonly string[],
): Promise<NetworkAttachment> {
  // A directory of the server's own for the pid file: /tmp of the host, never a sandbox's.
  const dir = mkdtempSync(join(tmpdir(), 'jumpseat-net-'));
  const pidFile = join(dir, 'pasta.pid');
  const args = [
    ...PASTA_OPTIONS,
    // As root pasta would change to nobody, who cannot enter a namespace that root's sandbox
    // owns; it still drops its capabilities and sandboxes itself once set up.
    ...(process.getuid?.() === 0 ? ['--runas', '0'] : []),
    '--netns',
    `/proc/${target}/ns/net`,
    // A sandbox root starts for the shell user has no user namespace of its own (see
    // bwrap-launcher.ts): there is none to join, and setns into one's own fails.
    ...(ownUserNamespace(target) ? [] : ['--userns', `/proc/${target}/ns/user`]),
    ...['--pid', pidFile],
  ];
  const [file, ...rest] = hostPrelude(cgroupProcFiles, [options.pasta, ...args]);
  // Should this server die unstopped, its pastas go with it (pasta-reaper.ts).
  const reaper = startPastaReaper(NETWORK_TAG_VARIABLE, options.runKey);
  reaper.starting(pidFile);
  return new Promise((resolve, reject) => {
    const child = spawn(file as string, rest, {
      stdio: ['ignore', 'ignore', 'pipe'],
      env: {
        PATH: process.env.PATH ?? '/usr/bin:/bin',
        [NETWORK_TAG_VARIABLE]: options.runKey,
        [SERVER_PID_VARIABLE]: String(process.pid),
      },
    });
    let said = '';
    child.stderr?.setEncoding('utf8').on('data', (text: string) => {
      said += text;
    });
    const timer = setTimeout(() => child.kill('SIGKILL'), PASTA_START_TIMEOUT_MS);
    child.on('error', (error) => {
      clearTimeout(timer);
      rmSync(dir, { recursive: true, force: true });
      reaper.ended(pidFile);
      reject(error);
    });
    // pasta's first process exits once the namespace is configured and its daemon runs.
    child.on('exit', (code, signal) => {
      clearTimeout(timer);
      const daemon = readPid(pidFile);
      rmSync(dir, { recursive: true, force: true });
      child.stderr?.destroy();
      if (code === 0 && daemon !== null) {
        resolve(attachment(daemon, () => reaper.ended(pidFile)));
        return;
      }
      if (daemon !== null) killPasta(daemon);
      reaper.ended(pidFile);
      const reason = firstRealLine(said) ?? `pasta exited with ${code ?? signal}`;
      reject(new Error(reason));
    });
  });
}

function attachment(daemon: number, ended: () => void): NetworkAttachment {
  let stopped = false;
  return {
    pid: daemon,
    stop() {
      if (stopped) return;
      stopped = true;
      killPasta(daemon);
      ended();
    },
  };
}

/** Kills `pid` only while it is still pasta (a pid can be reused by then). */
function killPasta(pid: number): void {
  let comm = '';
  try {
    comm = readFileSync(`/proc/${pid}/comm`, 'utf8').trim();
  } catch {
    return;
  }
  if (!/^(pasta|passt)/.test(comm)) return;
  try {
    process.kill(pid, 'SIGKILL');
  } catch {
    // Gone already.
  }
}

/** pasta's own messages, less its complaints that this host has no syslog to send them to. */
function firstRealLine(text: string): string | null {
  const lines = text.split('\n').map((line) => line.trim());
  return lines.find((line) => line !== '' && !/syslog|Don't run as root/.test(line)) ?? null;
}

function readPid(file: string): number | null {
  try {
    const pid = Number(readFileSync(file, 'utf8').trim());
    return Number.isSafeInteger(pid) && pid > 0 ? pid : null;
  } catch {
    return null;
  }
}

function childrenOf(pid: number): number[] {
  try {
    return readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8')
      .trim()
      .split(' ')
      .filter((part) => part !== '')
      .map(Number);
  } catch {
    return [];
  }
}

function safeReadlink(path: string): string | null {
  try {
    return readlinkSync(path);
  } catch {
    return null;
  }
}
