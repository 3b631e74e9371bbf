/**
 * Unmounts many file systems at once (the workspaces' at a stop): one Perl process calls
 * umount2(2) for each, and detaches (MNT_DETACH: freed once unused) what is still busy.
 * util-linux's `umount` reads and parses the whole mount table for every target, so with a
 * thousand workspaces mounted it took seconds where the kernel's own work takes milliseconds.
 * Perl because the exit waiter already needs it (perl-base is essential on Debian); where the
 * syscall's number is not known here, `umount` does it, a batch a process.
 */
import { execFile, spawn } from 'node:child_process';
import { UMOUNT2_SYSCALL } from './syscall-numbers.ts';

const MNT_DETACH = 2;
/** An unmount that has not finished by then is left (a stop must end). */
const UMOUNT_TIMEOUT_MS = 5000;
/** Targets one `umount` is given at most (well inside any argv limit). */
const UMOUNT_BATCH = 64;

/** Reads NUL-separated paths on stdin; a path that perl would take for a number cannot come. */
const UNMOUNTER = [
  // Numbers made numeric: syscall() passes a string as a pointer to it.
  'my ($nr, $detach) = map { $_ + 0 } @ARGV; local $/ = "\\0";',
  'while (my $p = <STDIN>) {',
  '  chomp $p; next if $p eq "";',
  '  next if syscall($nr, $p, 0) == 0;',
  '  syscall($nr, $p, $detach) == 0 or print STDERR "$p: $!\\n";',
  '}',
].join('\n');

/** Unmounts `points` (absolute paths), detaching those still busy; never rejects. */
export function unmountMany(points: readonly string[]): Promise<void> {
  if (points.length === 0) return Promise.resolve();
  const nr = UMOUNT2_SYSCALL;
  return nr === undefined ? unmountWithUtility(points) : unmountWithSyscall(nr, points);
}

function unmountWithSyscall(nr: number, points: readonly string[]): Promise<void> {
  return new Promise((resolve) => {
    const child = spawn('perl', ['-e', UNMOUNTER, String(nr), String(MNT_DETACH)], {
      stdio: ['pipe', 'ignore', 'ignore'],
      timeout: UMOUNT_TIMEOUT_MS,
    });
    child.once('error', () => resolve());
    child.once('close', () => resolve());
    child.stdin.once('error', () => undefined);
    child.stdin.end(points.map((point) => `${point}\0`).join(''));
  });
}

async function unmountWithUtility(points: readonly string[]): Promise<void> {
  const batches: string[][] = [];
  for (let i = 0; i < points.length; i += UMOUNT_BATCH) {
    batches.push(points.slice(i, i + UMOUNT_BATCH));
  }
  await Promise.all(batches.map((batch) => utility(batch, [])));
  await utility(points, ['-l']);
}

function utility(points: readonly string[], flags: readonly string[]): Promise<void> {
  return new Promise((resolve) => {
    execFile('umount', [...flags, '--', ...points], { timeout: UMOUNT_TIMEOUT_MS }, () =>
      resolve(),
    );
  });
}
