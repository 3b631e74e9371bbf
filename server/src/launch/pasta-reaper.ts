/**
 * Ends this server's pastas when the server dies without a stop (SIGKILL, a crash). pasta runs
 * as a daemon of its own and does not quit when its namespace's last process goes (its watch
 * of `/proc/<pid>/ns` never fires), so a killed server's pastas stayed, idle, until the next
 * start on the same data dir swept them, and forever if there was none.
 *
 * The reaper is one small process per server (perl, which the exit waiter needs anyway), in a
 * session of its own, that blocks reading a pipe from the server. The pipe closes when the
 * server's process ends, however it ends; the reaper then kills every pasta that carries both
 * this run's network tag and this server's pid (a restart on the same data dir has the same
 * tag but another pid), and exits. After a stop it finds none: the stop ended them.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import type { Socket } from 'node:net';

/** Set in pasta's environment with the server's pid: which run's reaper it belongs to. */
export const SERVER_PID_VARIABLE = 'JUMPSEAT_SERVER_PID';

const REAPER = [
  "$SIG{$_} = 'IGNORE' for qw(INT TERM HUP PIPE);",
  'my ($tag, $server) = @ARGV;',
  'my $buffer;',
  '1 while sysread(STDIN, $buffer, 4096);',
  "opendir(my $proc, '/proc') or exit 0;",
  'for my $pid (grep { /^\\d+$/ } readdir $proc) {',
  '  open(my $comm, \'<\', "/proc/$pid/comm") or next;',
  "  next unless (<$comm> // '') =~ /^pas(ta|st)/;",
  '  open(my $environ, \'<\', "/proc/$pid/environ") or next;',
  "  my %env = map { split /=/, $_, 2 } split /\\0/, do { local $/; <$environ> // '' };",
  "  kill 'KILL', $pid if ($env{$tag} // '') eq $ARGV[2] && ($env{$server} // '') eq $ARGV[3];",
  '}',
].join('\n');

/** The reapers started, by run key (a test process may run servers on several data dirs). */
const reapers = new Map<string, ChildProcess>();

/**
 * Starts the reaper once per process and run key, for pastas whose `tagVariable` is `runKey`. Best effort:
 * where perl cannot start, pastas are left to the next start's sweep, as before.
 */
export function startPastaReaper(tagVariable: string, runKey: string): void {
  if (reapers.has(runKey)) return;
  const child = spawn(
    'perl',
    ['-e', REAPER, tagVariable, SERVER_PID_VARIABLE, runKey, String(process.pid)],
    { stdio: ['pipe', 'ignore', 'ignore'], detached: true },
  );
  reapers.set(runKey, child);
  child.on('error', () => undefined);
  child.stdin?.on('error', () => undefined);
  // Never what keeps the server running: the pipe closes with the server's process.
  child.unref();
  (child.stdin as Socket | null)?.unref();
}
