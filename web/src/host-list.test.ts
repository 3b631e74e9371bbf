import { describe, expect, it } from 'vitest';
import type { HostInfo } from '../../shared/src/api.ts';
import {
  hostsInOrder,
  joinCommands,
  labelWords,
  loadText,
  mayDrain,
  mayUndrain,
  noHostsText,
  shellsText,
  versionsText,
} from './host-list.ts';

const host = (name: string, change: Partial<HostInfo> = {}): HostInfo => ({
  name,
  labels: {},
  state: 'connected',
  shells: 0,
  capacity: 500,
  load: 0,
  dialects: ['bash'],
  protocol: 1,
  engineVersion: '0.1.0',
  lastSeen: '2026-01-01T00:00:00.000Z',
  ...change,
});

describe('the hosts list', () => {
  it('orders hosts by name, numbers in names as people count them', () => {
    const names = hostsInOrder([host('build-10'), host('build-2'), host('arm')]).map((h) => h.name);
    expect(names).toEqual(['arm', 'build-2', 'build-10']);
  });

  it('reads labels as key=value, keys in order', () => {
    expect(labelWords({ zone: 'eu', gpu: '1' })).toEqual(['gpu=1', 'zone=eu']);
    expect(labelWords({})).toEqual([]);
  });

  it('reads shells against capacity, and load in whole percents', () => {
    const busy = host('a', { shells: 3, capacity: 8, load: 3 / 8 });
    expect(shellsText(busy)).toBe('3 / 8');
    expect(loadText(busy)).toBe('38%');
    expect(loadText(host('b', { shells: 0, capacity: 0, load: 1 }))).toBe('100%');
  });

  it('names the link protocol and the jumpseat the host runs', () => {
    expect(versionsText(host('a', { protocol: 2, engineVersion: '1.4.0' }))).toBe(
      'link v2 · jumpseat 1.4.0',
    );
    expect(versionsText(host('a', { engineVersion: '' }))).toBe('link v1 · jumpseat unknown');
  });

  it('offers Drain only to a connected host', () => {
    expect(mayDrain(host('a'))).toBe(true);
    expect(mayDrain(host('a', { state: 'draining' }))).toBe(false);
    expect(mayDrain(host('a', { state: 'unreachable' }))).toBe(false);
    expect(mayUndrain(host('a', { state: 'draining' }))).toBe(true);
    expect(mayUndrain(host('a'))).toBe(false);
  });

  it('says why no host is listed: shells of its own, a bare control plane, or unknown', () => {
    expect(noHostsText(true)).toMatch(/^No shell host has joined\. This server runs its shells/);
    expect(noHostsText(false)).toMatch(/runs no shells itself \(--local-shells off\)/);
    expect(noHostsText(null)).toBe('No shell host has joined. A host joins with a host token:');
    expect(joinCommands('https://js.example/')).toContain(
      'JUMPSEAT_TOKEN=js_… jumpseat host --join https://js.example/',
    );
  });
});
