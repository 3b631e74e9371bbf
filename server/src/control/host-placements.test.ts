import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { HOST_STORE_ENGINES } from '../../test/support/host-store-engines.ts';

describe.each(HOST_STORE_ENGINES)('host placements ($name)', (engine) => {
  beforeEach(() => engine.setUp());
  afterEach(() => engine.tearDown());

  it('records an agent’s first placement, and the next start (or replica) reads it', async () => {
    const placements = await engine.placements();
    expect(await placements.of('a1')).toEqual([]);
    expect(await placements.claim('a1', 'bash', 'h1', null)).toBe('h1');
    expect(await (await engine.placements()).of('a1')).toEqual([
      { dialect: 'bash', host: 'h1', claim: 1 },
    ]);
  });

  it('a claim on the row as read wins; one on a row placed since follows the winner', async () => {
    const a = await engine.placements();
    const b = await engine.placements();
    await a.claim('a1', 'bash', 'h1', null);
    // Both read claim 1; A places the new shell first, B's claim answers A's host.
    expect(await a.claim('a1', 'bash', 'h2', 1)).toBe('h2');
    expect(await b.claim('a1', 'bash', 'h3', 1)).toBe('h2');
    expect(await b.claim('a1', 'bash', 'h3', null)).toBe('h2');
    expect(await b.of('a1')).toEqual([{ dialect: 'bash', host: 'h2', claim: 2 }]);
  });

  it('of claims made at once from two stores, exactly one wins and both answer its host', async () => {
    const a = await engine.placements();
    const b = await engine.placements();
    for (const seen of [null, 1, 2]) {
      const answers = await Promise.all([
        a.claim('racer', 'bash', 'ha', seen),
        b.claim('racer', 'bash', 'hb', seen),
      ]);
      expect(new Set(answers).size).toBe(1);
      const [row] = await a.of('racer');
      expect(row).toEqual({ dialect: 'bash', host: answers[0], claim: (seen ?? 0) + 1 });
    }
  });

  it('keeps each dialect’s placement, the latest first', async () => {
    const placements = await engine.placements();
    await placements.claim('a2', 'bash', 'h1', null);
    // Timestamps of two statements in a row may be equal: the claim number breaks no tie
    // across dialects, so the second is made clearly later.
    await new Promise((resolve) => setTimeout(resolve, 20));
    await placements.claim('a2', 'pwsh', 'h2', null);
    expect(await placements.of('a2')).toEqual([
      { dialect: 'pwsh', host: 'h2', claim: 1 },
      { dialect: 'bash', host: 'h1', claim: 1 },
    ]);
  });

  it('forgets the placements on a forgotten host only, and places afresh after it', async () => {
    const placements = await engine.placements();
    await placements.claim('a1', 'bash', 'gone', null);
    await placements.claim('a2', 'bash', 'stays', null);
    await placements.forgetHost('gone');
    expect(await placements.of('a1')).toEqual([]);
    expect(await placements.of('a2')).toEqual([{ dialect: 'bash', host: 'stays', claim: 1 }]);
    // A claim that read the row before the forget is made afresh.
    expect(await placements.claim('a1', 'bash', 'new', 1)).toBe('new');
    expect(await placements.of('a1')).toEqual([{ dialect: 'bash', host: 'new', claim: 1 }]);
  });
});
