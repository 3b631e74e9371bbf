import { describe, expect, it } from 'vitest';
import { chooseHost, type PlacementCandidate } from './placement.ts';

const host = (name: string, extra: Partial<PlacementCandidate> = {}): PlacementCandidate => ({
  name,
  connected: true,
  draining: false,
  labels: {},
  dialects: ['bash'],
  shells: 0,
  capacity: 10,
  holdsWorkspace: false,
  ...extra,
});

describe('placement', () => {
  it('prefers the host holding the agent workspace, else the least loaded', () => {
    expect(chooseHost([host('a', { shells: 5 }), host('b', { shells: 2 })], 'bash', {})).toEqual({
      host: 'b',
    });
    expect(
      chooseHost(
        [host('a', { shells: 5, holdsWorkspace: true }), host('b', { shells: 2 })],
        'bash',
        {},
      ),
    ).toEqual({ host: 'a' });
    expect(
      chooseHost([host('a', { shells: 5, capacity: 100 }), host('b', { shells: 2 })], 'bash', {}),
    ).toEqual({ host: 'a' });
  });

  it('prefers the host of the agent’s last placement over others holding its workspace', () => {
    const hosts = [
      host('a', { holdsWorkspace: true }),
      host('b', { holdsWorkspace: true, placedLast: true, shells: 7 }),
      host('c'),
    ];
    expect(chooseHost(hosts, 'bash', {})).toEqual({ host: 'b' });
    // Full or drained, the last host is passed over like any other.
    expect(
      chooseHost(
        hosts.map((h) => (h.name === 'b' ? { ...h, draining: true } : h)),
        'bash',
        {},
      ),
    ).toEqual({ host: 'a' });
    expect(
      chooseHost(
        hosts.map((h) => (h.name === 'b' ? { ...h, shells: 10 } : h)),
        'bash',
        {},
      ),
    ).toEqual({ host: 'a' });
  });

  it('names why no host can take the shell', () => {
    expect(chooseHost([], 'bash', {})).toEqual({ refusal: 'no host is connected' });
    expect(chooseHost([host('a')], 'pwsh', {})).toEqual({
      refusal: 'no connected host runs pwsh',
    });
    expect(chooseHost([host('a', { labels: { gpu: '2' } })], 'bash', { gpu: '1' })).toEqual({
      refusal: 'no connected host has the labels gpu=1',
    });
    expect(chooseHost([host('a', { shells: 10 })], 'bash', {})).toEqual({
      refusal: 'every host is full',
    });
    expect(chooseHost([host('a', { draining: true })], 'bash', {})).toEqual({
      refusal: 'every host is draining',
    });
    expect(chooseHost([host('a', { connected: false })], 'bash', {})).toEqual({
      refusal: 'no host is connected',
    });
  });

  it('sends pwsh only to hosts that run it, and labelled shells only to hosts with every label', () => {
    const hosts = [
      host('plain', { dialects: ['bash'] }),
      host('ps', { dialects: ['bash', 'pwsh'], shells: 9 }),
      host('gpu', { labels: { gpu: '1', zone: 'eu' }, shells: 8 }),
    ];
    expect(chooseHost(hosts, 'pwsh', {})).toEqual({ host: 'ps' });
    expect(chooseHost(hosts, 'bash', { gpu: '1', zone: 'eu' })).toEqual({ host: 'gpu' });
  });
});
