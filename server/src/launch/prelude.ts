/**
 * The few lines of bash that run first in every shell's process, before the dialect's
 * program. node-pty 1.1 neither marks its PTY masters close-on-exec nor closes descriptors
 * before exec, so a new shell would hold every earlier shell's terminal (and whatever else the
 * server had open without close-on-exec); the host prelude closes every descriptor above 2
 * and joins the shell's cgroups before anything of the shell can fork. We keep node-pty 1.1
 * rather than a 1.2 pre-release: the 1.2.0 betas mark descriptors close-on-exec only up to the
 * first gap above 15 when their prebuilt binary lacks close_range, so they are not a
 * guarantee either, and this prelude works for every launcher.
 */

import { PERL_STEP_END } from './perl-steps.ts';
import { PRIVILEGE_DROP_SYSCALLS } from './syscall-numbers.ts';

/** The name the preludes run under (their `$0`), as `ps` shows them for a moment. */

const PRELUDE_NAME = 'jumpseat-launch';

/** The argument bwrap's `--seccomp` is given: the descriptor the host prelude opens. */
export const SECCOMP_FD = 3;

/** What the host prelude does besides closing descriptors and joining cgroups. */
export interface HostPreludeOptions {
  /** Descriptors above 2 the spawn gives the command on purpose, kept open. */
  readonly kept?: readonly number[];
  /**
   * A file opened read-only on SECCOMP_FD once the others are closed: bwrap's `--seccomp`
   * program, which the steps between (quota, privacy, network) pass on untouched. Opened here,
   * it costs no process of its own.
   */
  readonly seccompFile?: string | null;
}

/** The host prelude's script, keeping descriptors 0-2 and `kept`. */
function hostPreludeScript(kept: readonly number[], opensSeccomp: boolean): string {
  return [
    // No redirection around the loop: bash would keep the saved stderr in a descriptor the
    // loop then closes. The glob's own directory descriptor is closed again when it runs.
    `for fd in /proc/$$/fd/*; do fd=\${fd##*/}; case $fd in ${[0, 1, 2, ...kept].join('|')}) ;; *) [ -e "/proc/$$/fd/$fd" ] && exec {fd}>&- ;; esac; done`,
    // The first argument, then, is the file to open. 125 (as `env` uses) says the set-up
    // failed, not the shell.
    ...(opensSeccomp ? [`exec ${SECCOMP_FD}<"$1" || exit 125; shift`] : []),
    // Each argument up to `--` is a cgroup.procs file to join: the shell is counted and limited
    // from its first fork on.
    'while [ "$1" != -- ]; do echo $$ >"$1" || exit 125; shift; done',
    'shift',
    'exec "$@"',
  ].join('\n');
}

const HOST_PRELUDE = hostPreludeScript([], false);

/** Wraps `command` so it starts with only fds 0-2 (and `options`'), inside the given cgroups. */
export function hostPrelude(
  cgroupProcFiles: readonly string[],
  command: readonly string[],
  options: HostPreludeOptions = {},
): string[] {
  const kept = options.kept ?? [];
  const seccompFile = options.seccompFile ?? null;
  const plain = kept.length === 0 && seccompFile === null;
  return [
    'bash',
    '--noprofile',
    '--norc',
    '-c',
    plain ? HOST_PRELUDE : hostPreludeScript(kept, seccompFile !== null),
    PRELUDE_NAME,
    ...(seccompFile === null ? [] : [seccompFile]),
    ...cgroupProcFiles,
    '--',
    ...command,
  ];
}

/**
 * Wraps `command` so it runs as a foreground job of its own process group: an interactive
 * bash gives it the terminal, and the processes that started it (the sandbox's) are out of
 * the group a Ctrl-C reaches. `(exit $?)` hands on the status without bash's "exit" line.
 */
export function ownGroupPrelude(command: readonly string[]): string[] {
  return ['bash', '--noprofile', '--norc', '-i', '-c', '"$@"; (exit $?)', PRELUDE_NAME, ...command];
}

/** Per-process resource limits (rlimits) for where no cgroup holds them. */
export interface RlimitSettings {
  /** RLIMIT_NPROC; counted per user namespace (Linux 5.14+), so per sandbox. */
  readonly maxProcesses?: number;
  /** RLIMIT_AS in bytes: bounds each process, not the shell's total. */
  readonly maxMemoryBytes?: number;
}

/** Under RLIMIT_AS, the share of the limit .NET's GC may reserve for its heap (one in N). */
const DOTNET_HEAP_SHARE = 4;

/**
 * Wraps `command` so it runs under `limits` (hard and soft; a lower existing limit stays);
 * under a memory limit, .NET programs (pwsh) are told how much address space their heap may
 * reserve (`DOTNET_GCRegionRange`).
 */
export function rlimitPrelude(limits: RlimitSettings, command: readonly string[]): string[] {
  const steps: string[] = [];
  if (limits.maxProcesses !== undefined) {
    steps.push(
      `ulimit -Hu ${limits.maxProcesses} 2>/dev/null; ulimit -Su ${limits.maxProcesses} 2>/dev/null`,
    );
  }
  if (limits.maxMemoryBytes !== undefined) {
    const kib = Math.max(1, Math.floor(limits.maxMemoryBytes / 1024));
    steps.push(`ulimit -Hv ${kib} 2>/dev/null; ulimit -Sv ${kib} 2>/dev/null`);
    // .NET's GC reserves address space up to whatever RLIMIT_AS leaves, and the next mapping
    // (a module, a thread's stack) then fails: pwsh died "Out of memory" at a Read-Host under
    // an unprivileged server's 4 GiB. A quarter of the limit for its heap leaves it room.
    const range = Math.max(1, Math.floor(limits.maxMemoryBytes / DOTNET_HEAP_SHARE));
    steps.push(`export DOTNET_GCRegionRange=0x${range.toString(16)}`);
  }
  if (steps.length === 0) return [...command];
  return [
    'bash',
    '--noprofile',
    '--norc',
    '-c',
    `${steps.join('; ')}; exec "$@"`,
    PRELUDE_NAME,
    ...command,
  ];
}

const DROP_PRELUDE = [
  // (The sandbox's /tmp and /dev/shm are made 1777 by bwrap's --perms: no chmod to fork.)
  'uid=$1 gid=$2 setpriv=$3; shift 3',
  // Each argument up to `--` is a directory of the sandbox's own the shell must own (its home).
  'while [ "$1" != -- ]; do chown "$uid:$gid" "$1" || exit 125; shift; done',
  'shift',
  'exec "$setpriv" --reuid="$uid" --regid="$gid" --clear-groups --inh-caps=-all --bounding-set=-all --no-new-privs -- "$@"',
].join('\n');

/**
 * The same in one perl process, where this machine's syscall numbers are known: setpriv's
 * drop done by its own syscalls (every capability out of the bounding set, the ambient set
 * cleared, no supplementary groups, real, effective and saved ids changed, the inheritable set
 * emptied, no_new_privs), then checked against the kernel's own account in /proc/self/status:
 * a step that left anything of root fails the start (125) rather than run the shell. The next
 * step (the exit waiter) then runs in this process (perl-steps.ts): three programs fewer in
 * every sandboxed shell's start than bash, chown and setpriv.
 */
const DROP_STEP = [
  'my ($uid, $gid, $prctl, $capset, $setgroups, $setresuid, $setresgid) = splice(@ARGV, 0, 7);',
  'sub fail { print STDERR "jumpseat: dropping root: @_\n"; exit 125 }',
  'while (@ARGV && $ARGV[0] ne "--") {',
  '  my $dir = shift @ARGV; chown($uid + 0, $gid + 0, $dir) == 1 or fail("cannot give $dir: $!");',
  '}',
  'shift @ARGV;',
  // PR_CAPBSET_DROP for each capability; the kernel says EINVAL past its last one.
  'for my $cap (0 .. 63) {',
  '  next if syscall($prctl + 0, 24, $cap + 0, 0, 0, 0) == 0;',
  '  last if $!{EINVAL}; fail("cannot drop capability $cap from the bounding set: $!");',
  '}',
  // PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL.
  'syscall($prctl + 0, 47, 4, 0, 0, 0) == 0 or fail("cannot clear the ambient set: $!");',
  'syscall($setgroups + 0, 0, 0) == 0 or fail("cannot clear the groups: $!");',
  'syscall($setresgid + 0, $gid + 0, $gid + 0, $gid + 0) == 0 or fail("cannot change group: $!");',
  'syscall($setresuid + 0, $uid + 0, $uid + 0, $uid + 0) == 0 or fail("cannot change user: $!");',
  // capset, version 3 (two 32-bit halves of effective, permitted, inheritable), all empty.
  'my ($header, $sets) = (pack("LL", 0x20080522, 0), pack("L6", (0) x 6));',
  'syscall($capset + 0, $header, $sets) == 0 or fail("cannot empty the capability sets: $!");',
  // PR_SET_NO_NEW_PRIVS.
  'syscall($prctl + 0, 38, 1, 0, 0, 0) == 0 or fail("cannot set no_new_privs: $!");',
  'open(my $status, "<", "/proc/self/status") or fail("cannot read /proc/self/status: $!");',
  'my %is; while (my $line = <$status>) { chomp $line; my ($k, $v) = split(/:\\s*/, $line, 2); $is{$k} = $v // ""; }',
  'close $status;',
  '$is{Uid} eq join("\\t", ($uid) x 4) or fail("uids are still $is{Uid}");',
  '$is{Gid} eq join("\\t", ($gid) x 4) or fail("gids are still $is{Gid}");',
  '$is{Groups} =~ /^\\s*$/ or fail("groups are still $is{Groups}");',
  'for my $set (qw(CapInh CapPrm CapEff CapBnd CapAmb)) {',
  '  ($is{$set} // "") =~ /^0+$/ or fail("$set is still $is{$set}");',
  '}',
  '($is{NoNewPrivs} // "") eq "1" or fail("no_new_privs is not set");',
  PERL_STEP_END,
].join('\n');

/**
 * Runs first inside a sandbox started by root (without a user namespace: see
 * bwrap-launcher.ts): gives `uid` the sandbox's own directories it must own, then becomes
 * `uid:gid` for good, with no supplementary groups, no capabilities in any set and
 * no_new_privs (a setuid program cannot give any back). Needs CAP_SETUID, CAP_SETGID,
 * CAP_SETPCAP (the bounding set) and CAP_CHOWN, which bwrap keeps for this step only (with
 * CAP_DAC_READ_SEARCH, for its own --chdir). In perl where the syscall numbers are known
 * (DROP_STEP), else bash and setpriv.
 */
export function dropPrelude(
  user: { readonly uid: number; readonly gid: number },
  setpriv: string,
  ownedDirs: readonly string[],
  command: readonly string[],
): string[] {
  const calls = PRIVILEGE_DROP_SYSCALLS;
  if (calls !== undefined) {
    const numbers = [calls.prctl, calls.capset, calls.setgroups, calls.setresuid, calls.setresgid];
    return [
      'perl',
      '-e',
      DROP_STEP,
      ...[user.uid, user.gid, ...numbers].map(String),
      ...ownedDirs,
      '--',
      ...command,
    ];
  }
  return [
    'bash',
    '--noprofile',
    '--norc',
    '-c',
    DROP_PRELUDE,
    PRELUDE_NAME,
    String(user.uid),
    String(user.gid),
    setpriv,
    ...ownedDirs,
    '--',
    ...command,
  ];
}
