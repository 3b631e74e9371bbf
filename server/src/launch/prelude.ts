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

/** The name the preludes run under (their `$0`), as `ps` shows them for a moment. */
const PRELUDE_NAME = 'jumpseat-launch';

const HOST_PRELUDE = [
  // No redirection around the loop: bash would keep the saved stderr in a descriptor the
  // loop then closes. The glob's own directory descriptor is closed again when it runs.
  'for fd in /proc/$$/fd/*; do fd=${fd##*/}; case $fd in 0|1|2) ;; *) [ -e "/proc/$$/fd/$fd" ] && exec {fd}>&- ;; esac; done',
  // Each argument up to `--` is a cgroup.procs file to join: the shell is counted and limited
  // from its first fork on. 125 (as `env` uses) says the set-up failed, not the shell.
  'while [ "$1" != -- ]; do echo $$ >"$1" || exit 125; shift; done',
  'shift',
  'exec "$@"',
].join('\n');

/** Wraps `command` so it starts with only fds 0-2, inside the given cgroups. */
export function hostPrelude(
  cgroupProcFiles: readonly string[],
  command: readonly string[],
): string[] {
  return [
    'bash',
    '--noprofile',
    '--norc',
    '-c',
    HOST_PRELUDE,
    PRELUDE_NAME,
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

/**
 * Opens `file` as descriptor 3 and runs `command` (bwrap with `--seccomp 3`): node-pty passes
 * no descriptor beyond the terminal, so the filter reaches bwrap this way. The file lies in
 * the data dir, which no shell can see; bwrap reads it before the sandbox starts.
 */
export function seccompPrelude(file: string, command: readonly string[]): string[] {
  return [
    'bash',
    '--noprofile',
    '--norc',
    '-c',
    'exec 3<"$1" || exit 125; shift; exec "$@"',
    PRELUDE_NAME,
    file,
    ...command,
  ];
}

/** The argument bwrap's `--seccomp` is given: the descriptor seccompPrelude opens. */
export const SECCOMP_FD = 3;

const DROP_PRELUDE = [
  // (The sandbox's /tmp and /dev/shm are made 1777 by bwrap's --perms: no chmod to fork.)
  'uid=$1 gid=$2 setpriv=$3; shift 3',
  // Each argument up to `--` is a directory of the sandbox's own the shell must own (its home).
  'while [ "$1" != -- ]; do chown "$uid:$gid" "$1" || exit 125; shift; done',
  'shift',
  'exec "$setpriv" --reuid="$uid" --regid="$gid" --clear-groups --inh-caps=-all --bounding-set=-all --no-new-privs -- "$@"',
].join('\n');

/**
 * Runs first inside a sandbox started by root (without a user namespace: see
 * bwrap-launcher.ts): gives `uid` the sandbox's own directories it must own, then becomes
 * `uid:gid` for good, with no supplementary groups, no capabilities in any set and
 * no_new_privs (a setuid program cannot give any back). Needs CAP_SETUID, CAP_SETGID,
 * CAP_SETPCAP (the bounding set) and CAP_CHOWN, which bwrap keeps for this step only (with
 * CAP_DAC_READ_SEARCH, for its own --chdir).
 */
export function dropPrelude(
  user: { readonly uid: number; readonly gid: number },
  setpriv: string,
  ownedDirs: readonly string[],
  command: readonly string[],
): string[] {
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
