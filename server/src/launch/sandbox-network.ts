/**
 * A sandbox's network (`--network`): `on` gives each sandbox a network namespace of its own
 * with egress through `slirp4netns` (Debian's package of that name), and nothing of the host's
 * loopback, no other sandbox's listeners and no abstract unix sockets of anyone else (those are
 * per network namespace); `off` leaves the namespace with loopback only; `host` shares the
 * host's.
 *
 * slirp4netns is attached from outside once the namespace exists, and the shell's first call
 * waits for it. It forwards nothing inward (no API socket), its gateway does not lead to the
 * host's loopback (`--disable-host-loopback`) and it runs no DNS forwarder (`--disable-dns`:
 * the sandbox's resolv.conf is the host's), so the only way out is a real connection to a real
 * address, over IPv4 or IPv6 (egress-ipv6.ts). It parses what the agent sends, so it runs under
 * its own seccomp filter and, when root starts it, in an empty mount namespace without
 * capabilities (`--enable-sandbox`); when another user does, under Landlock (slirp-landlock.ts).
 *
 * We used pasta (passt) before: on this kind of machine its start-up took 170 ms of CPU and
 * 30 MB of memory per sandbox (it zeroes its buffers), where slirp4netns needs about 10 ms and
 * 3.5 MB; and pasta daemonises, so a killed server's pastas needed a reaper, where slirp4netns
 * stays our child and ends with the server by its parent-death signal.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, readFileSync, readlinkSync } from 'node:fs';
import type { Readable } from 'node:stream';
import { ipv6Ready, quickIpv6Prelude } from './egress-ipv6.ts';
import { hostPrelude } from './prelude.ts';
import { landlockPrelude } from './slirp-landlock.ts';

export const NETWORK_MODES = ['on', 'off', 'host'] as const;
export type NetworkMode = (typeof NETWORK_MODES)[number];

/** Set in slirp4netns's environment, `<run key>`: how the next start finds one a killed run left. */
export const NETWORK_TAG_VARIABLE = 'JUMPSEAT_SANDBOX_NETWORK';
/** The sandbox's namespace is set up within milliseconds of bwrap starting (seconds on a box
 *  that is very busy); past this it failed. */
const NAMESPACE_WAIT_MS = 10_000;
/** How often the sandbox's first process is looked for while bwrap sets up. */
const NAMESPACE_POLL_MS = 2;
/** slirp4netns configures the namespace in tens of ms; past this it hangs. */
const SLIRP_START_TIMEOUT_MS = 10_000;
/** How deep below the PTY's process the sandbox's first process sits (prelude, bwrap, init). */
const MAX_SANDBOX_DEPTH = 3;
/** Tries on a namespace not open to it yet, and the pause between them (attachTo). */
const ATTACH_ATTEMPTS = 20;
const ATTACH_RETRY_MS = 25;
/** slirp4netns's descriptor to say it is ready on (it writes "1"). */
const READY_FD = 3;
/** The sandbox's side of its network. */
const TAP_DEVICE = 'tap0';

const SLIRP_OPTIONS = [
  '--configure',
  // Its largest: the tap device's packets are copied once each way, so fewer is faster.
  '--mtu=65520',
  '--disable-host-loopback',
  '--disable-dns',
  '--enable-seccomp',
];

/** A running slirp4netns for one sandbox. */
export interface NetworkAttachment {
  /** slirp4netns's pid. */
  readonly pid: number;
  /** Ends slirp4netns (idempotent); the namespace goes with the sandbox's last process. */
  stop(): void;
}

export interface EgressOptions {
  readonly slirp: string;
  /** util-linux's setpriv, which gives slirp4netns its parent-death signal. */
  readonly setpriv: string;
  /** The sandbox's side's IPv4 subnet, one no route of the host's uses (egress-subnet.ts). */
  readonly subnet: string;
  /** IPv6 too (`fd00::/64` inside; egress-ipv6.ts): the kernel has it. */
  readonly ipv6: boolean;
  /**
   * util-linux's unshare. For a server that is not root it makes the sandbox's network
   * namespace (and a user namespace that owns it) before bubblewrap starts, so that
   * slirp4netns can enter it: made by bwrap itself, the namespace belongs to the first of the
   * two user namespaces bwrap makes for `--dev`, which no process stays in, and slirp4netns,
   * without privileges on the host, could not enter it (root may enter any namespace). For
   * root it gives slirp4netns a private mount namespace first (see startSlirp).
   */
  readonly unshare: string;
  readonly runKey: string;
}

/**
 * `command` (bubblewrap's) in a network namespace of its own, with the user namespace that owns
 * it, the server's uid mapped to itself: what slirp4netns enters (see EgressOptions.unshare).
 */
export function ownNetworkPrelude(unshare: string, command: readonly string[]): string[] {
  return [unshare, '--user', '--map-current-user', '--net', '--', ...command];
}

/**
 * Attaches slirp4netns to the network namespace of the sandbox below `ptyPid`; it joins the
 * shell's cgroups (so a reset or the next start's sweep ends it with the shell). Rejects with
 * the reason when the namespace never appears or slirp4netns fails.
 */
export async function attachNetwork(
  options: EgressOptions,
  ptyPid: number,
  cgroupProcFiles: readonly string[],
): Promise<NetworkAttachment> {
  return attachTo(options, await sandboxProcess(ptyPid), cgroupProcFiles);
}

/** slirp4netns attached to the network namespace (and user namespace) of process `target`. */
export async function attachTo(
  options: EgressOptions,
  target: number,
  cgroupProcFiles: readonly string[],
): Promise<NetworkAttachment> {
  // bubblewrap's child is in the new namespace before it has dropped its privileges; until
  // then an unprivileged slirp4netns may not open the namespace of a process more privileged
  // than itself. That passes within milliseconds: tried again while the target lives.
  for (let attempt = 1; ; attempt++) {
    try {
      return await startSlirp(options, target, cgroupProcFiles);
    } catch (error) {
      // One that hung is not tried again: twenty of those would hold the first call for minutes.
      const retry = !(error instanceof SlirpHung) && attempt < ATTACH_ATTEMPTS;
      if (!retry || !existsSync(`/proc/${target}`)) throw error;
      await new Promise((resolve) => setTimeout(resolve, ATTACH_RETRY_MS));
    }
  }
}

/** The first process below `ptyPid` in the sandbox's network namespace, once bwrap set it up. */
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

/**
 * The first process below `root` in a network namespace other than `own`, once it has a child
 * in that namespace too; null until then. Not at once: where bwrap makes the namespace, its
 * child then sets up the loopback (RTM_NEWADDR of 127.0.0.1, exclusive), and slirp4netns sets
 * `lo` up as it configures, which gives `lo` that address first: bwrap then failed the start
 * (`bwrap: loopback: Failed RTM_NEWADDR`, in CI). bwrap's child forks the command only once
 * its loopback is set up. Where unshare made the namespace, bwrap's child is that child.
 */
function findInOtherNamespace(root: number, own: string): number | null {
  let level = [root];
  for (let depth = 0; depth <= MAX_SANDBOX_DEPTH && level.length > 0; depth++) {
    const next: number[] = [];
    for (const pid of level) {
      const ns = safeReadlink(`/proc/${pid}/ns/net`);
      // A namespace made by unshare is entered once its user namespace maps the server's uid.
      if (ns !== null && ns !== own && hasUidMap(pid)) {
        const settled = childrenOf(pid).some(
          (child) => safeReadlink(`/proc/${child}/ns/net`) === ns,
        );
        return settled ? pid : null;
      }
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

function startSlirp(
  options: EgressOptions,
  target: number,
  cgroupProcFiles: readonly string[],
): Promise<NetworkAttachment> {
  const root = process.getuid?.() === 0;
  const joinsUser = !ownUserNamespace(target);
  const args = [
    ...SLIRP_OPTIONS,
    `--cidr=${options.subnet}`,
    ...(options.ipv6 ? ['--enable-ipv6'] : []),
    // Its own mount namespace on an empty root, without capabilities, once the tap device is
    // open: only root may make it (an unprivileged slirp4netns fails with "setegid(0)").
    ...(root ? ['--enable-sandbox'] : []),
    `--ready-fd=${READY_FD}`,
    // A sandbox root starts for the shell user has no user namespace of its own (see
    // bwrap-launcher.ts): there is none to join, and setns into one's own fails.
    ...(joinsUser ? [`--userns-path=/proc/${target}/ns/user`] : []),
    '--netns-type=path',
    `/proc/${target}/ns/net`,
    TAP_DEVICE,
  ];
  // SIGKILL when the server's process ends, however it ends (a SIGKILL included): no
  // descriptor of the server's is spent on it. As root, in a mount namespace of its own whose
  // mounts are all private: slirp4netns 1.2's --enable-sandbox makes only `/` private before
  // it detaches the old root, and the detach of every shared mount then reached the host's
  // (the nsfs mounts of `ip netns` went, and with them a namespace nothing else held).
  // Root's confines itself (--enable-sandbox); another's is confined by Landlock.
  const slirp = root
    ? [options.unshare, '--mount', '--propagation', 'private', '--', options.slirp, ...args]
    : landlockPrelude(
        [options.slirp, ...args],
        [`/proc/${target}/ns/net`, ...(joinsUser ? [`/proc/${target}/ns/user`] : [])],
      );
  const started = options.ipv6 ? quickIpv6Prelude(target, joinsUser, slirp) : slirp;
  // Without the step (no setns number here, or the target gone) IPv6 comes seconds later:
  // nothing to wait for.
  const waitsForIpv6 = started.length > slirp.length;
  const command = [options.setpriv, ...['--pdeathsig', 'KILL', '--'], ...started];
  const [file, ...rest] = hostPrelude(cgroupProcFiles, command, { kept: [READY_FD] });
  return new Promise((resolve, reject) => {
    const child = spawn(file as string, rest, {
      stdio: ['ignore', 'ignore', 'pipe', 'pipe'],
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin', [NETWORK_TAG_VARIABLE]: options.runKey },
    });
    const [, , stderr, readySocket] = child.stdio as (Readable | null)[];
    let said = '';
    stderr?.setEncoding('utf8').on('data', (text: string) => {
      said += text;
    });
    let settled = false;
    const fail = (error: Error): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      child.kill('SIGKILL');
      for (const stream of [stderr, readySocket]) stream?.destroy();
      reject(error);
    };
    const timer = setTimeout(() => fail(new SlirpHung()), SLIRP_START_TIMEOUT_MS);
    child.on('error', fail);
    child.on('exit', (code, signal) => {
      // Its messages may still be on their way: read what is there on the next turn.
      setImmediate(() =>
        fail(new Error(firstRealLine(said) ?? `slirp4netns exited with ${code ?? signal}`)),
      );
    });
    readySocket?.once('data', () => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      child.removeAllListeners('exit');
      stderr?.destroy();
      readySocket.destroy();
      // Kept open for slirp4netns's life, without holding the server's event loop.
      child.unref();
      const attached = attachment(child);
      // IPv4 is set up by now; IPv6 follows within milliseconds (a shell starts without it
      // when it does not: it comes later).
      if (waitsForIpv6) void ipv6Ready(target, TAP_DEVICE).then(() => resolve(attached));
      else resolve(attached);
    });
  });
}

/** slirp4netns neither ready nor ended by SLIRP_START_TIMEOUT_MS. */
class SlirpHung extends Error {
  constructor() {
    super(`slirp4netns was not ready within ${SLIRP_START_TIMEOUT_MS} ms`);
  }
}

function attachment(child: ChildProcess): NetworkAttachment {
  let stopped = false;
  return {
    pid: child.pid as number,
    stop() {
      if (stopped) return;
      stopped = true;
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    },
  };
}

/** slirp4netns's own complaint, less its warnings that a feature is experimental. */
function firstRealLine(text: string): string | null {
  const lines = text.split('\n').map((line) => line.trim());
  return lines.find((line) => line !== '' && !/^WARNING: /.test(line)) ?? null;
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
