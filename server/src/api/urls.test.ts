import type { NetworkInterfaceInfo } from 'node:os';
import { describe, expect, it } from 'vitest';
import { reachableUrls, serverUrl } from './urls.ts';

const info = (address: string, family: 'IPv4' | 'IPv6', internal: boolean): NetworkInterfaceInfo =>
  ({ address, family, internal, netmask: '', mac: '', cidr: null }) as NetworkInterfaceInfo;

const interfaces = {
  lo: [info('127.0.0.1', 'IPv4', true), info('::1', 'IPv6', true)],
  eth0: [info('192.168.1.20', 'IPv4', false), info('fe80::1', 'IPv6', false)],
  eth1: [info('10.0.0.7', 'IPv4', false), info('2001:db8::7', 'IPv6', false)],
};

describe('reachableUrls', () => {
  it('gives the public URL alone when one is set', () => {
    expect(reachableUrls('0.0.0.0', 7400, 'https://js.example.test/', interfaces)).toEqual([
      'https://js.example.test/',
    ]);
  });

  it("names the machine's IPv4 addresses, external first, for 0.0.0.0", () => {
    expect(reachableUrls('0.0.0.0', 7400, null, interfaces)).toEqual([
      'http://192.168.1.20:7400/',
      'http://10.0.0.7:7400/',
      'http://127.0.0.1:7400/',
    ]);
  });

  it('adds IPv6 (not link-local) addresses for ::', () => {
    expect(reachableUrls('::', 7400, null, interfaces)).toEqual([
      'http://192.168.1.20:7400/',
      'http://10.0.0.7:7400/',
      'http://[2001:db8::7]:7400/',
      'http://127.0.0.1:7400/',
      'http://[::1]:7400/',
    ]);
  });

  it('gives the listening address for a named host', () => {
    expect(reachableUrls('127.0.0.1', 7400, null, interfaces)).toEqual(['http://127.0.0.1:7400/']);
    expect(serverUrl('::1', 1)).toBe('http://[::1]:1/');
  });

  it('says https and carries the base path when the server has them', () => {
    const shape = { scheme: 'https', basePath: '/jumpseat/' } as const;
    expect(reachableUrls('127.0.0.1', 7443, null, interfaces, shape)).toEqual([
      'https://127.0.0.1:7443/jumpseat/',
    ]);
    expect(reachableUrls('0.0.0.0', 7443, null, { lo: interfaces.lo }, shape)).toEqual([
      'https://127.0.0.1:7443/jumpseat/',
    ]);
    expect(serverUrl('::1', 1, shape)).toBe('https://[::1]:1/jumpseat/');
  });
});
