/**
 * Ends this server's pastas when the server dies without a stop (SIGKILL, a crash). pasta runs
 * as a daemon of its own and does not quit when its namespace's last process goes (its watch
 * of `/proc/<pid>/ns` never fires), so a killed server's pastas stayed, idle, until the next
 * start on the same data dir swept them, and forever if there was none.
 *
 * The reaper is one small process per server (perl, which the exit waiter needs anyway), in a
 * session of its own, that blocks reading a pipe from the server. Before starting each pasta
 * the server tells it that pasta's pid file (`+PATH`, which pasta's command line carries after
 * `--pid`), and once pasta is ended or failed, `-PATH`. The pipe closes when the server's
 * process ends, however it ends; the reaper then kills every pasta whose command line names
 * a pid file it was told of, and every pasta that carries both this run's network tag and
 * this server's pid in its environment (a restart on the same data dir has the same tag but
 * another pid). The command line is what works for a server that is not root: pasta makes
 * itself non-dumpable, so its environment cannot be read by its own user; and, told before
 * the start, it covers a pasta whose daemon had not said its pid yet when the server died,
 * and the prelude that was still to exec pasta then (whatever its name: the pid file's path
 * in its arguments says whose it is; one was left running in CI). It looks again until a
 * round finds none, and removes the pid files' folders. After a stop it finds none: the stop
 * ended them.
 */
import { spawn } from 'node:child_process';
import type { Socket } from 'node:net';

/** Set in pasta's environment with the server's pid: which run's reaper it belongs to. */
export const SERVER_PID_VARIABLE = 'JUMPSEAT_SERVER_PID';

const REAPER = String.raw`
$SIG{$_} = 'IGNORE' for qw(INT TERM HUP PIPE);
my ($tag, $server, $run, $me) = @ARGV;
my %told;
while (my $line = <STDIN>) {
  chomp $line;
  if ($line =~ /^\+(.+)$/) { $told{$1} = 1 }
  elsif ($line =~ /^-(.+)$/) { delete $told{$1} }
}
sub slurp { open(my $file, '<', $_[0]) or return ''; local $/; return <$file> // '' }
sub sweep {
  my $killed = 0;
  opendir(my $proc, '/proc') or return 0;
  for my $pid (grep { /^\d+$/ } readdir $proc) {
    my @args = split /\0/, slurp("/proc/$pid/cmdline");
    my ($file) = map { $args[$_ + 1] // '' } grep { $args[$_] eq '--pid' } 0 .. $#args;
    # A told pid file is this server's alone (mkdtemp): whatever carries it is its pasta, or
    # the prelude about to become one.
    my $told = defined $file && $told{$file};
    my $ours = 0;
    if (!$told && slurp("/proc/$pid/comm") =~ /^pas(ta|st)/) {
      my %env = map { split /=/, $_, 2 } split /\0/, slurp("/proc/$pid/environ");
      $ours = ($env{$tag} // '') eq $run && ($env{$server} // '') eq $me;
    }
    $killed += kill 'KILL', $pid if $told || $ours;
  }
  return $killed;
}
# Again until a round finds none: a pasta's first process forks its daemon, which a round
# that read /proc just before the fork did not see.
for my $round (1 .. 10) { last unless sweep(); select(undef, undef, undef, 0.05) }
# The pid files' folders were the server's, made for them.
for my $file (keys %told) { unlink $file; rmdir($file =~ s{/[^/]*$}{}r) }
`;

/** What the server tells its reaper. */
export interface PastaReaper {
  /** A pasta with this pid file (`--pid`) is about to start: kill it should the server die. */
  starting(pidFile: string): void;
  /** That pasta was ended by the server, or did not start. */
  ended(pidFile: string): void;
}

/** The reapers started, by run key (a test process may run servers on several data dirs). */
const reapers = new Map<string, PastaReaper>();

/**
 * Starts the reaper once per process and run key, for pastas whose `tagVariable` is `runKey`.
 * Best effort: where perl cannot start, pastas are left to the next start's sweep, as before.
 */
export function startPastaReaper(tagVariable: string, runKey: string): PastaReaper {
  const known = reapers.get(runKey);
  if (known !== undefined) return known;
  const child = spawn(
    'perl',
    ['-e', REAPER, tagVariable, SERVER_PID_VARIABLE, runKey, String(process.pid)],
    { stdio: ['pipe', 'ignore', 'ignore'], detached: true },
  );
  child.on('error', () => undefined);
  child.stdin?.on('error', () => undefined);
  // Never what keeps the server running: the pipe closes with the server's process.
  child.unref();
  (child.stdin as Socket | null)?.unref();
  const tell = (line: string): void => {
    if (child.stdin?.writable) child.stdin.write(`${line}\n`);
  };
  // One line each: a path with a line break in it is never told (nor made: mkdtemp's names).
  const tellOf = (sign: '+' | '-', path: string): void => {
    if (!/[\r\n]/.test(path)) tell(`${sign}${path}`);
  };
  const reaper: PastaReaper = {
    starting: (pidFile) => tellOf('+', pidFile),
    ended: (pidFile) => tellOf('-', pidFile),
  };
  reapers.set(runKey, reaper);
  return reaper;
}
