/**
 * Every tmpfs a sandbox mounts gets a size (`--tmp-size`): without one the kernel allows half
 * of RAM per mount, and a shell's /tmp, /dev/shm, home and /run could each hold that much after
 * its call ended. tmpfs pages are charged to the memory cgroup of the process that writes them,
 * so where the shell's memory cgroup holds, all its tmpfs together count in `--max-memory`
 * as well; each mount on its own never passes this size.
 */

/** bwrap applies `--size BYTES` to the `--tmpfs` that follows it (bubblewrap 0.8 and later). */
const SIZE_OPTION = '--size';
const TMPFS_OPTION = '--tmpfs';
/** Where bwrap's options end and the sandboxed command begins. */
const END_OF_OPTIONS = '--';

/**
 * `args` with `--size bytes` before each `--tmpfs` among bwrap's options, whoever added it (the
 * hidden home, /run and data dir are tmpfs too). The command after `--` is left alone.
 */
export function sizedTmpfs(args: readonly string[], bytes: number): string[] {
  const sized: string[] = [];
  let options = true;
  for (let i = 0; i < args.length; i++) {
    const arg = args[i] as string;
    if (options && arg === END_OF_OPTIONS) options = false;
    // A value of an option (a path) is never `--tmpfs`: paths are absolute.
    const sizedAlready = i >= 2 && args[i - 2] === SIZE_OPTION;
    if (options && arg === TMPFS_OPTION && !sizedAlready) sized.push(SIZE_OPTION, String(bytes));
    sized.push(arg);
  }
  return sized;
}

/**
 * bwrap's `--dev` is an unsized tmpfs the sandbox's root may write: made read-only (its device
 * nodes stay usable), with /dev/shm a sized tmpfs of its own, writable by everyone like the host's.
 */
export function devArgs(): string[] {
  return ['--dev', '/dev', '--remount-ro', '/dev', '--perms', '01777', '--tmpfs', '/dev/shm'];
}
