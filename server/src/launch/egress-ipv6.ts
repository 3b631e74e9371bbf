/**
 * IPv6 egress for `--network on`: slirp4netns's `--enable-ipv6` gives the sandbox `fd00::/64`
 * (fixed in slirp4netns 1.2) with its router at `fe80::2`, learned by router advertisement.
 * Left to the kernel's defaults, the sandbox's address is usable only some 3 s after the tap
 * device comes up (duplicate address detection twice, and a random wait before asking for the
 * router), long after the shell's first call. So before slirp4netns makes the device, a step
 * sets the namespace's defaults for new devices to neither check nor wait (nothing else is on
 * that link to clash with), and once slirp4netns is ready the attach waits, briefly, for the
 * address and the default route: about 10 ms.
 */
import { existsSync, readFileSync, readlinkSync } from 'node:fs';
import { PERL_STEP_END } from './perl-steps.ts';
import { SETNS_SYSCALL } from './syscall-numbers.ts';

/** The attach waits this long at most for IPv6 to be usable; past it, the shell goes on. */
const IPV6_WAIT_MS = 1000;
const IPV6_POLL_MS = 2;
/** if_inet6's flags of an address not usable yet: tentative, or its check failed. */
const NOT_USABLE_FLAGS = 0x40 | 0x08;

/** Whether this kernel has IPv6 (booted with `ipv6.disable=1` it has no such sysctl tree). */
export function kernelHasIpv6(): boolean {
  return existsSync('/proc/sys/net/ipv6');
}

/**
 * In a child that enters the namespaces (the user namespace when given, for a server that is
 * not root), new devices' `accept_dad` and `router_solicitation_delay` become 0; then the next
 * step runs whatever happened (IPv6 then only comes later). The child exits: the step's own
 * process never leaves the host's namespaces, so what it runs next (slirp4netns) is outside.
 */
const QUICK_IPV6_STEP = [
  'my ($setns, $user, $net, $expected) = splice(@ARGV, 0, 4); shift @ARGV;',
  'my $child = fork();',
  'if (defined $child && $child == 0) {',
  '  for my $entry ([$user, 0x10000000], [$net, 0x40000000]) {',
  '    my ($path, $flag) = @$entry;',
  "    next if $path eq '-';",
  '    open(my $ns, \'<\', $path) or do { print STDERR "jumpseat: cannot open $path: $!\\n"; exit 1 };',
  // The sandbox's namespace, the one the server saw, never another (the pid was reused).
  '    if ($flag == 0x40000000 && (stat($ns))[1] != $expected) {',
  '      print STDERR "jumpseat: $path is not the sandbox\'s network namespace any more\\n"; exit 1;',
  '    }',
  '    syscall($setns + 0, fileno($ns), $flag) == 0',
  '      or do { print STDERR "jumpseat: cannot enter $path: $!\\n"; exit 1 };',
  '    close $ns;',
  '  }',
  "  for my $name ('accept_dad', 'router_solicitation_delay') {",
  '    my $file = "/proc/sys/net/ipv6/conf/default/$name";',
  '    my $out;',
  '    (open($out, \'>\', $file) and print {$out} "0\\n" and close $out)',
  '      or do { print STDERR "jumpseat: cannot set $file: $!\\n"; exit 1 };',
  '  }',
  '  exit 0;',
  '}',
  'waitpid($child, 0) if defined $child;',
  PERL_STEP_END,
].join('\n');

/**
 * `command` (slirp4netns's start) after the step above for process `target`'s network
 * namespace, entering its user namespace first when `enterUser`; `command` alone where this
 * machine's setns number is not known, or the target is gone. The step writes only into the
 * namespace `target` is in now (its inode, read here): were the pid reused meanwhile by a
 * process of the host's, the host's defaults would have been changed.
 */
export function quickIpv6Prelude(
  target: number,
  enterUser: boolean,
  command: readonly string[],
): string[] {
  const namespace = namespaceInode(`/proc/${target}/ns/net`);
  if (SETNS_SYSCALL === undefined || namespace === null) return [...command];
  return [
    'perl',
    '-e',
    QUICK_IPV6_STEP,
    String(SETNS_SYSCALL),
    enterUser ? `/proc/${target}/ns/user` : '-',
    `/proc/${target}/ns/net`,
    namespace,
    '--',
    ...command,
  ];
}

/**
 * `net:[4026531840]` → `4026531840`; null when the process is gone, or is in the server's own
 * namespace (whose defaults are the host's, never to be touched).
 */
function namespaceInode(path: string): string | null {
  try {
    const link = readlinkSync(path);
    if (link === readlinkSync('/proc/self/ns/net')) return null;
    return /\[(\d+)\]$/.exec(link)?.[1] ?? null;
  } catch {
    return null;
  }
}

/**
 * Waits until the network namespace of `target` has a global IPv6 address on `device` that is
 * usable and a default route, up to IPV6_WAIT_MS; false when it had not by then.
 */
export async function ipv6Ready(target: number, device: string): Promise<boolean> {
  const deadline = Date.now() + IPV6_WAIT_MS;
  for (;;) {
    if (hasUsableIpv6(target, device)) return true;
    if (Date.now() > deadline || !existsSync(`/proc/${target}`)) return false;
    await new Promise((resolve) => setTimeout(resolve, IPV6_POLL_MS));
  }
}

/** One look at the namespace's addresses and routes (`/proc/PID/net` is that process's). */
export function hasUsableIpv6(target: number, device: string): boolean {
  const addresses = readOrEmpty(`/proc/${target}/net/if_inet6`);
  const routes = readOrEmpty(`/proc/${target}/net/ipv6_route`);
  return usableAddress(addresses, device) && defaultRoute(routes, device);
}

/** if_inet6: `address index prefix-length scope flags device`, all hex but the device. */
export function usableAddress(ifInet6: string, device: string): boolean {
  return ifInet6.split('\n').some((line) => {
    const [, , , scope, flags, name] = line.trim().split(/\s+/);
    return (
      name === device &&
      scope === '00' &&
      flags !== undefined &&
      (Number.parseInt(flags, 16) & NOT_USABLE_FLAGS) === 0
    );
  });
}

/** ipv6_route: `destination prefix source prefix next-hop metric refs use flags device`. */
export function defaultRoute(ipv6Route: string, device: string): boolean {
  return ipv6Route.split('\n').some((line) => {
    const fields = line.trim().split(/\s+/);
    return fields[0] === '0'.repeat(32) && fields[1] === '00' && fields[9] === device;
  });
}

function readOrEmpty(path: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return '';
  }
}
