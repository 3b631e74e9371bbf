/**
 * Exact endings from inside a sandbox (issue 22.3). bwrap exits with its command's status
 * and reports a command killed by signal N as 128 + N, so `exit 147` and SIGSTOP… SIGKILL
 * look the same from outside. A tiny parent between the sandbox's init and the shell waits
 * for the shell and prints its exact wait status to the terminal as one of the shell's own
 * marks (`<prefix>C<code>` or `<prefix>S<signal number>`, then BEL) just before it exits
 * with the usual status; the engine takes that over the sandbox's exit status.
 *
 * Perl, because it is on every Debian (perl-base is essential) and waits for a child in one
 * line. The waiter ignores the terminal's job-control and keyboard signals after the fork (the
 * shell gets them as before): it may sit in the foreground group (pwsh's job) and must print
 * even when a command set `stty tostop`. A shell stopped by a signal is not an ending: the
 * waiter keeps waiting. What the shell itself could do is forge the mark: it knows the shell
 * nonce anyway (see the bash integration), and the forgery only misreports its own ending.
 */

const WAITER = [
  'my $pid = fork() // exit 125;',
  'if ($pid == 0) { exec { $ARGV[1] } @ARGV[1 .. $#ARGV] or exit 127; }',
  '$SIG{$_} = "IGNORE" for qw(TTOU TTIN TSTP INT QUIT);',
  'while (waitpid($pid, 0) == -1) { exit 125 unless $!{EINTR}; }',
  'my $st = $?; my $sig = $st & 127;',
  'syswrite STDOUT, $ARGV[0] . ($sig ? "S$sig" : "C" . ($st >> 8)) . "\\a";',
  'exit($sig ? 128 + $sig : $st >> 8);',
].join('\n');

/** Wraps `command` so its exact ending is printed as `markPrefix` + `C<code>`/`S<n>` + BEL. */
export function exitWaiterPrelude(markPrefix: string, command: readonly string[]): string[] {
  return ['perl', '-e', WAITER, markPrefix, ...command];
}

/** The ending an exit mark's data (`C147`, `S9`) tells, or null when it is not one. */
export function parseExitMark(data: string): { code: number } | { signal: number } | null {
  const match = /^([CS])(\d{1,3})$/.exec(data);
  if (!match) return null;
  const value = Number(match[2]);
  return match[1] === 'C' ? (value <= 255 ? { code: value } : null) : { signal: value };
}
