/**
 * The IPv4 subnet of a sandbox's side of its network (sandbox-network.ts). Inside, that
 * subnet is on the tap device, so any host address in it would be out of the shell's reach:
 * a subnet the host routes to (its own networks, a VPN's) or its name server (a VM's host
 * often has it at 10.0.2.3, slirp's own default) must not be chosen. The first candidate that
 * overlaps none of them is.
 */
import { readFileSync } from 'node:fs';

/** /24s to choose from, most usual first (slirp4netns's default is the first). */
const CANDIDATES = ['10.0.2.0/24', '10.233.17.0/24', '172.31.241.0/24', '192.168.233.0/24'];

interface Range {
  readonly base: number;
  readonly mask: number;
}

/** The first candidate clear of the host's routes and name servers; the last one failing that. */
export function egressSubnet(
  routeTable = readOrEmpty('/proc/net/route'),
  resolvConf = readOrEmpty('/etc/resolv.conf'),
): string {
  const taken = [...routedRanges(routeTable), ...nameServers(resolvConf)];
  const clear = CANDIDATES.find((candidate) => {
    const range = parseCidr(candidate);
    return !taken.some((other) => overlaps(range, other));
  });
  return clear ?? (CANDIDATES.at(-1) as string);
}

/** The destinations of /proc/net/route (little-endian hex), the default route left out. */
function routedRanges(table: string): Range[] {
  const ranges: Range[] = [];
  for (const line of table.split('\n').slice(1)) {
    const [, destination, , , , , , mask] = line.trim().split(/\s+/);
    if (destination === undefined || mask === undefined) continue;
    const range = { base: fromLittleEndianHex(destination), mask: fromLittleEndianHex(mask) };
    if (range.mask !== 0 && Number.isFinite(range.base)) ranges.push(range);
  }
  return ranges;
}

function nameServers(conf: string): Range[] {
  const ranges: Range[] = [];
  for (const line of conf.split('\n')) {
    const address = line.match(/^\s*nameserver\s+(\d+\.\d+\.\d+\.\d+)\s*$/)?.[1];
    const base = address === undefined ? null : parseAddress(address);
    if (base !== null) ranges.push({ base, mask: 0xffffffff });
  }
  return ranges;
}

function overlaps(a: Range, b: Range): boolean {
  const mask = (a.mask & b.mask) >>> 0;
  return (a.base & mask) >>> 0 === (b.base & mask) >>> 0;
}

function parseCidr(cidr: string): Range {
  const [address = '', bits = '32'] = cidr.split('/');
  const length = Number(bits);
  return {
    base: parseAddress(address) ?? 0,
    mask: length === 0 ? 0 : (0xffffffff << (32 - length)) >>> 0,
  };
}

function parseAddress(address: string): number | null {
  const parts = address.split('.').map(Number);
  if (parts.length !== 4 || parts.some((part) => !Number.isInteger(part) || part > 255))
    return null;
  return parts.reduce((value, part) => value * 256 + part, 0);
}

/** /proc/net/route's `0102A8C0` is 192.168.2.1: its bytes in reverse. */
function fromLittleEndianHex(hex: string): number {
  if (!/^[0-9A-Fa-f]{8}$/.test(hex)) return Number.NaN;
  const bytes = (hex.match(/../g) as string[]).map((pair) => Number.parseInt(pair, 16));
  return bytes.reverse().reduce((value, byte) => value * 256 + byte, 0);
}

function readOrEmpty(path: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return '';
  }
}
