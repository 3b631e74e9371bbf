/**
 * Ends this server's pastas when the server dies without a stop (SIGKILL, a crash). pasta runs
 * as a daemon of its own and does not quit when its namespace's last process goes (its watch
 * of `/proc/<pid>/ns` never fires), so a killed server's pastas stayed, idle, until the next
 * start on the same data dir swept them, and forever if there was none.
 *
 * The reaper is one small process per server (perl, which the exit waiter needs anyway), in a
 * session of its own, that blocks reading a pipe from the server. The server tells it each
 * pasta it starts (`+PID START`, START from /proc/PID/stat) and each it ends (`-PID`). The
 * pipe closes when the server's process ends, however it ends; the reaper then kills:
 * - each pasta it was told of that is still that process (same start time, still pasta);
 * - every pasta that carries both this run's network tag and this server's pid in its
 *   environment (a restart on the same data dir has the same tag but another pid).
 * The list is what works for a server that is not root: pasta makes itself non-dumpable, so
 * its environment cannot be read by its own user. After a stop it finds none: the stop ended
 * them.
 */
import { spawn } from 'node:child_process';
import type { Socket } from 'node:net';
import { startTimeOf } from '../pty/proc-probe.ts';

/** Set in pasta's environment with the server's pid: which run's reaper it belongs to. */
export const SERVER_PID_VARIABLE = 'JUMPSEAT_SERVER_PID';

const REAPER = String.raw`
$SIG{$_} = 'IGNORE' for qw(INT TERM HUP PIPE);
my ($tag, $server, $run, $me) = @ARGV;
my %told;
while (my $line = <STDIN>) {
  if ($line =~ /^\+(\d+) (\d+)$/) { $told{$1} = $2 }
  elsif ($line =~ /^-(\d+)$/) { delete $told{$1} }
}
sub pasta {
  open(my $comm, '<', "/proc/$_[0]/comm") or return 0;
  return (<$comm> // '') =~ /^pas(ta|st)/;
}
sub started {
  open(my $stat, '<', "/proc/$_[0]/stat") or return '';
  (my $fields = <$stat> // '') =~ s/^.*\) //s;
  return (split / /, $fields)[19] // '';
}
for my $pid (keys %told) { kill 'KILL', $pid if pasta($pid) && started($pid) eq $told{$pid} }
opendir(my $proc, '/proc') or exit 0;
for my $pid (grep { /^\d+$/ } readdir $proc) {
  next unless pasta($pid);
  open(my $environ, '<', "/proc/$pid/environ") or next;
  my %env = map { split /=/, $_, 2 } split /\0/, do { local $/; <$environ> // '' };
  kill 'KILL', $pid if ($env{$tag} // '') eq $run && ($env{$server} // '') eq $me;
}
`;

/** What the server tells its reaper. */
export interface PastaReaper {
  /** A pasta daemon started: kill it should the server die. */
  started(pid: number): void;
  /** That pasta was ended by the server. */
  ended(pid: number): void;
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
  const reaper: PastaReaper = {
    started(pid) {
      const since = startTimeOf(pid);
      if (since !== null) tell(`+${pid} ${since}`);
    },
    ended: (pid) => tell(`-${pid}`),
  };
  reapers.set(runKey, reaper);
  return reaper;
}
