/**
 * Spare sandbox networks for `--network on`: namespaces made, and slirp4netns attached to
 * them, before any shell asks, so that a new shell's first call does not wait for either. A
 * sandbox placed while a spare is ready enters that namespace (nsenter) instead of making one;
 * otherwise the shell gets its namespace and slirp4netns as before (sandbox-network.ts,
 * attachNetwork).
 *
 * Each spare is a holder process, `sleep` in the new namespace with no capabilities, that
 * keeps the namespace until a sandbox enters it; slirp4netns is ended with it. The holder gets
 * SIGKILL when the server dies (parent-death signal) and carries the run's tag, so a killed
 * server leaves neither behind (leftover-sweep.ts). A spare is used by one sandbox only, and
 * never shared: nothing but its holder (and slirp4netns, for a moment) was ever in that namespace.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { PERL_STEP_END } from './perl-steps.ts';
import { hostPrelude } from './prelude.ts';
import { RefillSchedule } from './refill-schedule.ts';
import {
  attachTo,
  type EgressOptions,
  NETWORK_TAG_VARIABLE,
  type NetworkAttachment,
} from './sandbox-network.ts';
import { SETNS_SYSCALL } from './syscall-numbers.ts';

/** util-linux's programs a spare is made and entered with. */
export interface SpareTools {
  readonly unshare: string;
  readonly nsenter: string;
  readonly setpriv: string;
}

/** Spares kept ready; one is made at a time, so a burst of new shells takes the slow way. */
const SPARES = 2;
/** The holder is in its namespace within milliseconds; past this its start failed. */
const HOLDER_WAIT_MS = 5000;
const HOLDER_POLL_MS = 2;
/** After a spare failed to be made, the next try waits this long (no busy loop). */
const RETRY_AFTER_FAILURE_MS = 5000;

/** Enters the network namespace named by a path (CLONE_NEWNET), then the next step. */
const ENTER_STEP = [
  'my ($setns, $path) = splice(@ARGV, 0, 2); shift @ARGV;',
  'open(my $ns, "<", $path) or do { print STDERR "jumpseat: cannot open $path: $!\\n"; exit 125 };',
  'syscall($setns + 0, fileno($ns), 0x40000000) == 0',
  '  or do { print STDERR "jumpseat: cannot enter $path: $!\\n"; exit 125 };',
  'close $ns;',
  PERL_STEP_END,
].join('\n');

/** A namespace with slirp4netns attached, taken by one sandbox. */
export interface SpareNetwork {
  /** `command` run inside the spare's namespace (and its user namespace, when not root). */
  enter(command: readonly string[]): string[];
  /** Ends slirp4netns and the holder: the sandbox's release, or a sandbox that never started. */
  readonly attachment: NetworkAttachment;
  /** Moves slirp4netns and the holder into the shell's cgroups (best effort). */
  joinCgroups(cgroupProcFiles: readonly string[]): void;
}

interface Ready {
  readonly holder: ChildProcess;
  readonly pid: number;
  readonly egress: NetworkAttachment;
}

export class NetworkSpares {
  private readonly ready: Ready[] = [];
  private making = false;
  private armed = false;
  private closed = false;
  private readonly refill = new RefillSchedule(() => this.fill());
  private readonly asRoot = process.getuid?.() === 0;

  constructor(
    private readonly options: EgressOptions,
    private readonly tools: SpareTools,
  ) {}

  /**
   * Starts keeping spares. Called once the start-up sweep has run: the sweep kills whatever
   * carries this run key's tag, spares included.
   */
  arm(): void {
    if (this.closed) return;
    this.armed = true;
    this.fill();
  }

  /**
   * A ready spare, or null (none ready yet); another is made in its place. The first take
   * arms the spares where no sweep did (a server that sweeps does so before any shell).
   */
  take(): SpareNetwork | null {
    if (!this.armed) this.arm();
    let spare = this.ready.shift();
    // A holder that died is dropped at its exit; one whose exit is not yet seen is skipped.
    while (spare !== undefined && !alive(spare)) {
      spare.egress.stop();
      spare = this.ready.shift();
    }
    this.refill.afterTake();
    return spare === undefined ? null : this.handOver(spare);
  }

  /** A shell answered its first call: spares taken are made again now (refill-schedule.ts). */
  shellSettled(): void {
    this.refill.shellSettled();
  }

  /** Ends every spare and makes no more (the server stops). */
  close(): void {
    this.closed = true;
    this.refill.close();
    for (const spare of this.ready.splice(0)) endSpare(spare);
  }

  private handOver(spare: Ready): SpareNetwork {
    const { pid, egress } = spare;
    return {
      enter: (command) =>
        this.asRoot
          ? enterAsRoot(this.tools.nsenter, `/proc/${pid}/ns/net`, command)
          : [
              this.tools.nsenter,
              `--user=/proc/${pid}/ns/user`,
              `--net=/proc/${pid}/ns/net`,
              '--preserve-credentials',
              '--',
              ...command,
            ],
      attachment: { pid: egress.pid, stop: () => endSpare(spare) },
      joinCgroups: (cgroupProcFiles) => {
        for (const file of cgroupProcFiles) {
          for (const member of [egress.pid, pid]) {
            try {
              writeFileSync(file, String(member));
            } catch {
              // Not moved: it still ends with the shell (release) and with the server.
            }
          }
        }
      },
    };
  }

  private fill(): void {
    if (!this.armed || this.closed || this.making || this.refill.pending) return;
    if (this.ready.length >= SPARES) return;
    this.making = true;
    this.makeOne().then(
      (spare) => {
        this.making = false;
        if (this.closed) {
          endSpare(spare);
          return;
        }
        this.ready.push(spare);
        // A holder that dies while parked (the operator killed it) takes its slirp4netns along.
        spare.holder.once('exit', () => {
          const at = this.ready.indexOf(spare);
          if (at !== -1) this.ready.splice(at, 1);
          spare.egress.stop();
        });
        this.fill();
      },
      () => {
        this.making = false;
        // The slow way still works for every shell; try again later, not in a loop.
        this.refill.later(RETRY_AFTER_FAILURE_MS);
      },
    );
  }

  private async makeOne(): Promise<Ready> {
    const { unshare, setpriv } = this.tools;
    const holderCommand = [
      unshare,
      ...(this.asRoot ? [] : ['--user', '--map-current-user']),
      '--net',
      '--',
      setpriv,
      '--pdeathsig',
      'KILL',
      // As root, no capabilities: nothing in the namespace is worth more than its network.
      ...(this.asRoot ? ['--inh-caps=-all', '--bounding-set=-all'] : []),
      '--',
      'sleep',
      'infinity',
    ];
    // Through the host prelude: the holder must not inherit the shells' terminals.
    const [file, ...args] = hostPrelude([], holderCommand);
    const holder = spawn(file as string, args, {
      stdio: 'ignore',
      env: {
        PATH: process.env.PATH ?? '/usr/bin:/bin',
        [NETWORK_TAG_VARIABLE]: this.options.runKey,
      },
    });
    const pid = holder.pid;
    try {
      if (pid === undefined) throw new Error('the namespace holder did not start');
      await holderInPlace(holder, pid);
      const egress = await attachTo(this.options, pid, []);
      return { holder, pid, egress };
    } catch (error) {
      holder.kill('SIGKILL');
      throw error;
    }
  }
}

/**
 * Root's way in: a perl step (which runs in the process of the perl step before it, the
 * mount privacy's: perl-steps.ts) where this machine's setns number is known, else nsenter.
 */
function enterAsRoot(nsenter: string, namespace: string, command: readonly string[]): string[] {
  if (SETNS_SYSCALL === undefined) return [nsenter, `--net=${namespace}`, '--', ...command];
  return ['perl', '-e', ENTER_STEP, String(SETNS_SYSCALL), namespace, '--', ...command];
}

function alive(spare: Ready): boolean {
  return spare.holder.exitCode === null && spare.holder.signalCode === null;
}

function endSpare(spare: Ready): void {
  spare.egress.stop();
  spare.holder.kill('SIGKILL');
}

/** Resolves once the holder runs `sleep`: its namespaces are made (and mapped) by then. */
async function holderInPlace(holder: ChildProcess, pid: number): Promise<void> {
  const deadline = Date.now() + HOLDER_WAIT_MS;
  for (;;) {
    if (holder.exitCode !== null || holder.signalCode !== null) {
      throw new Error('the namespace holder ended');
    }
    if (commOf(pid) === 'sleep') return;
    if (Date.now() > deadline) throw new Error('the namespace holder did not settle');
    await new Promise((resolve) => setTimeout(resolve, HOLDER_POLL_MS));
  }
}

function commOf(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/comm`, 'utf8').trim();
  } catch {
    return '';
  }
}
