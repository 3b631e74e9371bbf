/**
 * slirp4netns parses every packet the agent sends. Started by root it confines itself
 * (`--enable-sandbox`: an empty root, no capabilities); started by a server that is not root
 * it cannot (that needs root), and a flaw in its parser would have run as the server's user,
 * able to read the server's data dir (the tokens, the history) and its environment. So there a
 * step before it confines it with Landlock (Linux 5.13+), which any process may apply to
 * itself and what it runs:
 *
 * - files: it may execute and read under /usr (itself and its libraries; Debian's /lib is
 *   /usr/lib), read the loader's cache, /etc/resolv.conf and /dev/urandom, and open /dev/null and
 *   /dev/net/tun. Nothing else, the data dir and `/proc/<server>/environ` included. The
 *   namespace files it enters (`/proc/<pid>/ns/*`) open nsfs's inodes, which Landlock leaves
 *   alone;
 * - where the kernel can (Landlock ABI 6): no abstract unix socket outside its own domain,
 *   and no signal to a process outside it.
 *
 * Connections are not limited: egress is its job. Where Landlock is missing (an older kernel,
 * or not among the kernel's LSMs) the step changes nothing and slirp4netns still has its own
 * seccomp filter. Root's slirp4netns is not confined so: Landlock forbids mounting, which its
 * own sandbox needs.
 */
import { spawnSync } from 'node:child_process';
import { PERL_STEP_END } from './perl-steps.ts';
import { LANDLOCK_SYSCALL, PRIVILEGE_DROP_SYSCALLS } from './syscall-numbers.ts';

/** What slirp4netns may open, and how (LANDLOCK_ACCESS_FS_* names). */
const ALLOWED: readonly (readonly [string, string])[] = [
  ['/usr', 'EXECUTE READ_FILE READ_DIR'],
  ['/lib', 'EXECUTE READ_FILE READ_DIR'],
  ['/lib64', 'EXECUTE READ_FILE READ_DIR'],
  ['/etc/ld.so.cache', 'READ_FILE'],
  ['/etc/resolv.conf', 'READ_FILE'],
  ['/dev/urandom', 'READ_FILE'],
  ['/dev/null', 'READ_FILE WRITE_FILE'],
  ['/dev/net/tun', 'READ_FILE WRITE_FILE IOCTL_DEV'],
];

/**
 * Arguments: landlock_create_ruleset's number and prctl's, then pairs of a path and its
 * rights, then `--`, the paths to hold open, `--`, and the command. Held paths are opened before
 * the confinement (kept open across exec) and named `/proc/self/fd/N` in the command: a
 * confined process may not look into another process's `/proc/<pid>/ns` (Landlock treats that as
 * ptrace of a process outside its domain), but its own descriptors it may. The rights each ABI knows are handled (so denied unless
 * allowed): the first thirteen from ABI 1, REFER from 2, TRUNCATE from 3, IOCTL_DEV from 5; the
 * two scopes from 6. A path that is missing is skipped; any other failure leaves the step
 * unconfined, said on stderr, and runs the command all the same.
 */
const STEP = [
  'my ($create, $prctl) = splice(@ARGV, 0, 2); my @keep;',
  'my %bit = (EXECUTE => 1, WRITE_FILE => 2, READ_FILE => 4, READ_DIR => 8, IOCTL_DEV => 32768);',
  'my @rules; while ($ARGV[0] ne "--") { push @rules, [splice(@ARGV, 0, 2)] } shift @ARGV;',
  'my @held; while ($ARGV[0] ne "--") { push @held, shift @ARGV } shift @ARGV;',
  // Descriptors perl opens from here on stay open across exec.
  '$^F = 1 << 30;',
  'for my $path (@held) {',
  '  open(my $fh, "<", $path) or do { print STDERR "jumpseat: cannot open $path: $!\\n"; exit 125 };',
  '  my $fd = fileno($fh); push @keep, $fh;',
  '  s{\\Q$path\\E}{/proc/self/fd/$fd}g for @ARGV;',
  '}',
  '$^F = 2;',
  'sub confine {',
  '  my $abi = syscall($create + 0, 0, 0, 1);',
  '  return "Landlock is not available: $!" if $abi < 1;',
  '  my $handled = 0x1FFF | ($abi >= 2 ? 0x2000 : 0) | ($abi >= 3 ? 0x4000 : 0) | ($abi >= 5 ? 0x8000 : 0);',
  '  my $attr = $abi >= 6 ? pack("QQQ", $handled, 0, 3) : pack("Q", $handled);',
  '  my $ruleset = syscall($create + 0, $attr, length($attr), 0);',
  '  return "cannot make a Landlock ruleset: $!" if $ruleset < 0;',
  '  for my $rule (@rules) {',
  '    my ($path, $names) = @$rule;',
  '    my $access = 0; $access |= $bit{$_} for split / /, $names;',
  '    $access &= $handled;',
  // O_PATH | O_CLOEXEC: a handle on the place, opened by file descriptor number.
  '    sysopen(my $dir, $path, 0x200000 | 0x80000) or next;',
  '    my $beneath = pack("Ql", $access, fileno($dir));',
  '    syscall($create + 1, $ruleset, 1, $beneath, 0) == 0 or return "cannot allow $path: $!";',
  '    close $dir;',
  '  }',
  // PR_SET_NO_NEW_PRIVS: what an unprivileged process must set before it confines itself.
  '  syscall($prctl + 0, 38, 1, 0, 0, 0) == 0 or return "cannot set no_new_privs: $!";',
  '  syscall($create + 2, $ruleset, 0) == 0 or return "cannot confine: $!";',
  '  return undef;',
  '}',
  'my $why = confine();',
  'print STDERR "jumpseat: slirp4netns runs without Landlock: $why\\n" if defined $why;',
  PERL_STEP_END,
].join('\n');

/**
 * `command` confined as above, with each of `held` (a namespace file it enters) opened first
 * and renamed in its arguments; unchanged where this machine's syscall numbers are unknown.
 */
export function landlockPrelude(command: readonly string[], held: readonly string[]): string[] {
  const prctl = PRIVILEGE_DROP_SYSCALLS?.prctl;
  if (LANDLOCK_SYSCALL === undefined || prctl === undefined) return [...command];
  return [
    'perl',
    '-e',
    STEP,
    String(LANDLOCK_SYSCALL),
    String(prctl),
    ...ALLOWED.flat(),
    '--',
    ...held,
    '--',
    ...command,
  ];
}

/**
 * Why slirp4netns would run without Landlock here (the kernel has none, or it is not among its
 * LSMs, or this machine's syscall numbers are unknown); null when it is confined. Asked once at
 * start, for the banner: the step's own line goes to slirp4netns's stderr, which the server
 * reads only when slirp4netns fails. `syscall` is landlock_create_ruleset's number.
 */
export function landlockShortfall(syscall = LANDLOCK_SYSCALL): string | null {
  if (syscall === undefined || PRIVILEGE_DROP_SYSCALLS?.prctl === undefined) {
    return `no Landlock system call numbers for ${process.arch}`;
  }
  // LANDLOCK_CREATE_RULESET_VERSION: the ABI version, or -1 and why.
  const probe = spawnSync(
    'perl',
    [
      '-e',
      'my $abi = syscall($ARGV[0] + 0, 0, 0, 1); print $abi >= 1 ? "abi $abi" : "$!"',
      String(syscall),
    ],
    { encoding: 'utf8', timeout: 5000 },
  );
  if (probe.error !== undefined) return `perl could not be run: ${probe.error.message}`;
  const said = probe.stdout.trim();
  return /^abi \d+$/.test(said)
    ? null
    : `the kernel has no Landlock for it (${said || 'no answer'})`;
}
