/**
 * A shell's start-up is a chain of small steps, each running the next (the quota's mount, the
 * mount privacy, the drop of root, the exit waiter). Several are perl, and on a small machine
 * every exec of perl costs several milliseconds: a perl step whose next step is perl too runs
 * that one in its own process instead (`eval`, with the arguments the exec would have given),
 * so a chain of them costs one start of perl. Every step ends in an exec or an exit, so the
 * eval returns only on a failure to compile, which is reported like a step's own failure.
 */

/** The last line of every perl step: the next step, in this process when it is perl. */
export const PERL_STEP_END = [
  'if (@ARGV > 2 && $ARGV[0] eq "perl" && $ARGV[1] eq "-e") {',
  '  my $next = $ARGV[2]; splice(@ARGV, 0, 3);',
  '  eval $next; print STDERR "jumpseat: a start-up step failed: $@\\n"; exit 125;',
  '}',
  'exec { $ARGV[0] } @ARGV or do { print STDERR "jumpseat: cannot run $ARGV[0]: $!\\n"; exit 125 };',
].join('\n');
