import { describe, expect, it } from 'vitest';
import { defaultRoute, quickIpv6Prelude, usableAddress } from './egress-ipv6.ts';

const LINK_LOCAL = 'fe800000000000008c7717fffead25cf 03 40 20 80     tap0';
const GLOBAL = 'fd000000000000008c7717fffead25cf 03 40 00 00     tap0';
const TENTATIVE = 'fd000000000000008c7717fffead25cf 03 40 00 40     tap0';
const DAD_FAILED = 'fd000000000000008c7717fffead25cf 03 40 00 08     tap0';
const LOOPBACK = '00000000000000000000000000000001 01 80 10 80       lo';

describe('usableAddress', () => {
  it('is a global address on the device, checked (or never checked)', () => {
    expect(usableAddress([LOOPBACK, LINK_LOCAL, GLOBAL].join('\n'), 'tap0')).toBe(true);
  });

  it('is not a tentative or failed one, a link-local one, or one on another device', () => {
    expect(usableAddress([LOOPBACK, LINK_LOCAL, TENTATIVE].join('\n'), 'tap0')).toBe(false);
    expect(usableAddress(DAD_FAILED, 'tap0')).toBe(false);
    expect(usableAddress(GLOBAL, 'tap1')).toBe(false);
    expect(usableAddress('', 'tap0')).toBe(false);
    expect(usableAddress('garbage line\n\n', 'tap0')).toBe(false);
  });
});

describe('defaultRoute', () => {
  const zero = '0'.repeat(32);
  const viaRouter = `${zero} 00 ${zero} 00 fe800000000000000000000000000002 00000400 00000001 00000000 00450003     tap0`;
  const onLink = `fd000000000000000000000000000000 40 ${zero} 00 ${zero} 00000100 00000001 00000000 00000001     tap0`;
  const unreachable = `${zero} 00 ${zero} 00 ${zero} ffffffff 00000001 00000000 00200200       lo`;

  it('is the ::/0 route through the device', () => {
    expect(defaultRoute([onLink, viaRouter].join('\n'), 'tap0')).toBe(true);
  });

  it('is not an on-link prefix, nor the kernel’s unreachable default on lo', () => {
    expect(defaultRoute([onLink, unreachable].join('\n'), 'tap0')).toBe(false);
    expect(defaultRoute('', 'tap0')).toBe(false);
  });
});

describe('quickIpv6Prelude', () => {
  it('never runs its step for a process in the server’s own namespace, or one that is gone', () => {
    // The host's defaults are never the sandbox's to change: a pid reused by a host process.
    expect(quickIpv6Prelude(process.pid, false, ['slirp4netns'])).toEqual(['slirp4netns']);
    expect(quickIpv6Prelude(2 ** 22 + 12345, false, ['slirp4netns'])).toEqual(['slirp4netns']);
  });
});
