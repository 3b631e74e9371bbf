import { describe, expect, it } from 'vitest';
import { egressSubnet } from './egress-subnet.ts';

const HEADER = 'Iface\tDestination\tGateway\tFlags\tRefCnt\tUse\tMetric\tMask\tMTU\tWindow\tIRTT';

function routes(...lines: [string, string][]): string {
  return [
    HEADER,
    // The default route: never in the way.
    'eth0\t00000000\t010200C0\t0003\t0\t0\t0\t00000000\t0\t0\t0',
    ...lines.map(
      ([destination, mask]) => `eth0\t${destination}\t00000000\t0001\t0\t0\t0\t${mask}\t0\t0\t0`,
    ),
  ].join('\n');
}

describe('egressSubnet', () => {
  it("takes slirp's usual subnet where nothing of the host's is in it", () => {
    expect(egressSubnet(routes(['000200C0', '00FFFFFF']), 'nameserver 192.0.2.53\n')).toBe(
      '10.0.2.0/24',
    );
  });

  it('passes over a subnet the host routes to', () => {
    // 10.0.0.0/8 (0000000A, mask 000000FF) covers the first candidate.
    expect(egressSubnet(routes(['0000000A', '000000FF']), '')).toBe('172.31.241.0/24');
    // 10.0.2.0/24 itself (0002000A, mask 00FFFFFF), as a VM on slirp has it.
    expect(egressSubnet(routes(['0002000A', '00FFFFFF']), '')).toBe('10.233.17.0/24');
  });

  it("passes over the host's name server", () => {
    expect(egressSubnet(routes(), '# a comment\nnameserver 10.0.2.3\n')).toBe('10.233.17.0/24');
    expect(egressSubnet(routes(), 'nameserver 10.0.2.3\nnameserver 10.233.17.1\n')).toBe(
      '172.31.241.0/24',
    );
  });

  it('reads garbage as nothing', () => {
    expect(egressSubnet('nonsense\n\tZZZZ 12', 'nameserver 999.1.1.1\nnameserver fe80::1\n')).toBe(
      '10.0.2.0/24',
    );
  });
});
