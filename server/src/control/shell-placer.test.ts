import { describe, expect, it } from 'vitest';
import type { Dialect } from '../../../shared/src/api.ts';
import { LINK_PROTOCOL_VERSION } from '../../../shared/src/link.ts';
import type { HostPlacements, PlacementRecord } from './host-placements.ts';
import { HostDirectory } from './joined-hosts.ts';
import { ShellPlacer } from './shell-placer.ts';

/** A store whose rows and rival claims the test sets. */
class ScriptedPlacements implements HostPlacements {
  rows: PlacementRecord[] = [];
  /** The host a rival replica placed the shell on first, if any. */
  rival: string | undefined;
  failing = false;
  readonly claims: { host: string; seen: number | null }[] = [];

  async of(): Promise<PlacementRecord[]> {
    if (this.failing) throw new Error('store broken');
    return this.rows;
  }

  async claim(_agent: string, _dialect: Dialect, host: string, seen: number | null) {
    this.claims.push({ host, seen });
    return this.rival ?? host;
  }

  async forgetHost(): Promise<void> {}
  close(): void {}
}

function directoryWith(placements: HostPlacements, names: readonly string[]): HostDirectory {
  const directory = new HostDirectory(60_000, undefined, placements);
  for (const name of names) {
    const answer = directory.join(
      { send: () => undefined, sendLater: () => undefined, close: () => undefined },
      { id: `token-${name}`, name },
      {
        type: 'hello',
        versions: [LINK_PROTOCOL_VERSION],
        labels: {},
        maxShells: 10,
        dialects: ['bash'],
        engineVersion: 'test',
        workspaces: ['a1'],
        shells: [],
        calls: [],
      },
    );
    if (!('host' in answer)) throw new Error(answer.refusal);
  }
  return directory;
}

const none = () => 0;

describe('shell placer', () => {
  it('goes back to the host of the agent’s last placement, and claims it on the row read', async () => {
    const store = new ScriptedPlacements();
    store.rows = [
      { dialect: 'pwsh', host: 'h2', claim: 4 },
      { dialect: 'bash', host: 'h1', claim: 7 },
    ];
    const placer = new ShellPlacer(directoryWith(store, ['h1', 'h2', 'h3']), store);
    // Every host holds the workspace and none has a shell: h2 only because it came last.
    expect((await placer.place('a1', 'bash', {}, none)).name).toBe('h2');
    expect(store.claims).toEqual([{ host: 'h2', seen: 7 }]);
  });

  it('follows the winner of a rival claim when that host can take the shell here', async () => {
    const store = new ScriptedPlacements();
    store.rival = 'h3';
    const placer = new ShellPlacer(directoryWith(store, ['h1', 'h2', 'h3']), store);
    expect((await placer.place('a1', 'bash', {}, none)).name).toBe('h3');
    expect(store.claims).toEqual([{ host: 'h1', seen: null }]);
  });

  it('keeps its own choice when the winner’s host is drained, unknown or away here', async () => {
    const store = new ScriptedPlacements();
    const directory = directoryWith(store, ['h1', 'h2']);
    const placer = new ShellPlacer(directory, store);
    store.rival = 'elsewhere';
    expect((await placer.place('a1', 'bash', {}, none)).name).toBe('h1');
    store.rival = 'h2';
    await directory.drains.drain('h2');
    expect((await placer.place('a1', 'bash', {}, none)).name).toBe('h1');
  });

  it('places from the directory alone when the store cannot answer', async () => {
    const store = new ScriptedPlacements();
    store.failing = true;
    const warnings: string[] = [];
    const onWarning = (warning: Error) => warnings.push(warning.message);
    process.on('warning', onWarning);
    try {
      const placer = new ShellPlacer(directoryWith(store, ['h1', 'h2']), store);
      expect(
        (await placer.place('a1', 'bash', {}, (host) => (host.name === 'h1' ? 3 : 0))).name,
      ).toBe('h2');
      expect(store.claims).toEqual([]);
      await new Promise((resolve) => setImmediate(resolve));
      expect(warnings).toEqual(['host placements: store broken']);
    } finally {
      process.off('warning', onWarning);
    }
  });
});
