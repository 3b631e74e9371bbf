/**
 * Hides other workspaces' file systems from a sandbox (root's sandboxes, with a quota or
 * without). bwrap's `--ro-bind / /` copies every mount below `/`, so without this each sandbox
 * held a copy of every workspace mounted when it started (and, where `/` is shared, of those
 * mounted later): its mount table named the other agents, and its copies kept their file
 * systems and loop devices alive after their own server had unmounted them (hidden under the
 * root's tmpfs, but held). Marking the mounts unbindable does not help: bwrap makes its mounts
 * slaves first, which clears that mark.
 *
 * So the step before bwrap enters a mount namespace of its own (root's, made private: nothing
 * done on the host reaches it later, nothing done in it reaches the host) and detaches there
 * every mount that is not this shell's to see: the mounts below the workspace root but the
 * shell's own workspace, the spares waiting below SPARE_MOUNT_DIR, and any other server's
 * workspaces (an ext4 on a loop device beside a `.quota` dir, as workspace-quota.ts lays them
 * out), and every namespace handle (nsfs, as `ip netns` keeps them in /run/netns). bwrap's
 * namespace is then a copy of that one. One perl process (perl-base is essential
 * on Debian; the unmounter needs it too), a few milliseconds of a shell's start.
 *
 * It also ends a race that refused shells under load: bwrap remounts, one by one, every mount
 * it copied, and a spare moved onto a workspace meanwhile (its directory removed, which
 * detaches the copies) failed that remount: `bwrap: Can't bind mount /oldroot/ on /newroot/:
 * Unable to apply mount flags: remount "/newroot/run/jumpseat-spares/.spare-….ext4.d": No
 * such file or directory` (CI, ended-shells.test.ts). Here a mount gone meanwhile is simply
 * not there to detach. A server without a quota of its own (a shared workspace) runs the step
 * too, with no workspace root: other servers' workspaces and spares come and go beside it
 * (the browser suite's server refused a new shell with 503 while a spec's server stopped).
 */
import { PERL_STEP_END } from './perl-steps.ts';
import { MOUNT_SYSCALL, UMOUNT2_SYSCALL, UNSHARE_SYSCALL } from './syscall-numbers.ts';

const CLONE_NEWNS = 0x20000;
const MS_REC = 0x4000;
const MS_PRIVATE = 0x40000;
const MNT_DETACH = 2;

/**
 * Arguments: the three syscall numbers, the flags, the shell's workspace, the workspace root
 * and the spares' dir; then `--` and the command. A mount point's octal escapes (`\040`) are
 * decoded as the kernel wrote them. Exit 125 (as the other steps) says the set-up failed.
 */
const STEP = [
  'my ($unshare, $mount, $umount2, $newns, $private, $detach, $keep, $root, $spares) =',
  '  splice(@ARGV, 0, 9); shift @ARGV;',
  'sub fail { print STDERR "jumpseat: workspace privacy: @_\\n"; exit 125 }',
  'syscall($unshare + 0, $newns + 0) == 0 or fail("cannot make a mount namespace: $!");',
  // syscall() may write into a string it is given: variables, not literals.
  'my ($none, $top) = ("none", "/");',
  'syscall($mount + 0, $none, $top, 0, $private + 0, 0) == 0 or fail("cannot make its mounts private: $!");',
  'open(my $table, "<", "/proc/self/mountinfo") or fail("cannot read the mount table: $!");',
  'my @gone;',
  'while (my $line = <$table>) {',
  '  my ($left, $right) = split / - /, $line, 2;',
  '  next unless defined $right;',
  '  my @field = split / /, $left; my ($type, $source) = split / /, $right;',
  '  my $point = $field[4] // next;',
  '  $point =~ s/\\\\([0-7]{3})/chr(oct($1))/ge;',
  '  next if $point eq $keep;',
  '  my $up = $point =~ s{/[^/]*$}{}r; my $upper = $up =~ s{/[^/]*$}{}r;',
  '  push @gone, $point if ($root ne "" && index($point, "$root/") == 0) || index($point, "$spares/") == 0',
  '    || ($type eq "ext4" && $source =~ m{^/dev/loop} && (-d "$up/.quota" || -d "$upper/.quota"))',
  // A namespace's handle (`ip netns`'s /run/netns/NAME): nothing a shell may enter, and
  // removed on the host at any moment (bwrap's remount of its copy then refused the shell).
  '    || $type eq "nsfs";',
  '}',
  'close $table;',
  'syscall($umount2 + 0, $_, $detach + 0) for reverse @gone;',
  PERL_STEP_END,
].join('\n');

/**
 * `command` run in a mount namespace where, of the workspaces' file systems, only
 * `workspace`'s is mounted; unchanged where this machine's syscall numbers are not known here.
 * `root`: the workspace root whose mounts are this server's (its quota's); '' for none.
 */
export function withoutForeignMounts(
  paths: { readonly workspace: string; readonly root: string; readonly spares: string },
  command: readonly string[],
): string[] {
  const [unshare, mount, umount2] = [UNSHARE_SYSCALL, MOUNT_SYSCALL, UMOUNT2_SYSCALL];
  if (unshare === undefined || mount === undefined || umount2 === undefined) return [...command];
  const flags = [CLONE_NEWNS, MS_REC | MS_PRIVATE, MNT_DETACH].map(String);
  const { workspace, root, spares } = paths;
  return [
    'perl',
    '-e',
    STEP,
    ...[unshare, mount, umount2].map(String),
    ...flags,
    workspace,
    root,
    spares,
    '--',
    ...command,
  ];
}
