import { describe, expect, it } from 'vitest';
import { readTrustProxy } from './trust-proxy.ts';

const from = (raw: string) => ({ raw, source: '--trust-proxy' });

describe('readTrustProxy', () => {
  it('is empty when not given, and lists addresses, CIDRs and range names', () => {
    expect(readTrustProxy(undefined)).toEqual([]);
    expect(readTrustProxy(from('127.0.0.1, 10.0.0.0/8,::1,fd00::/8,loopback'))).toEqual([
      '127.0.0.1',
      '10.0.0.0/8',
      '::1',
      'fd00::/8',
      'loopback',
    ]);
  });

  it('refuses what is not an address, with the entry named', () => {
    expect(() => readTrustProxy(from('127.0.0.1,proxy.example'))).toThrow(
      /^--trust-proxy must list proxy addresses, CIDRs \(10\.0\.0\.0\/8\) or loopback, linklocal, uniquelocal .*proxy\.example/,
    );
    expect(() => readTrustProxy(from('10.0.0.0/33'))).toThrow(/10\.0\.0\.0\/33/);
    expect(() => readTrustProxy(from('10.0.0.0/8/1'))).toThrow(/--trust-proxy/);
  });
});
