import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { eventually, HOST_STORE_ENGINES } from '../../test/support/host-store-engines.ts';

describe.each(HOST_STORE_ENGINES)('host drains ($name)', (engine) => {
  beforeEach(() => engine.setUp());
  afterEach(() => engine.tearDown());

  it('keeps a drain for the next start (or replica), and lifts it the same way', async () => {
    const first = await engine.drains();
    await first.drain('build-3');
    expect(first.has('build-3')).toBe(true);
    expect(first.has('build-4')).toBe(false);
    const again = await engine.drains();
    expect(again.has('build-3')).toBe(true);
    await again.undrain('build-3');
    expect(again.has('build-3')).toBe(false);
    expect((await engine.drains()).has('build-3')).toBe(false);
  });

  it('drains twice as once, and undrains a host that was never drained', async () => {
    const drains = await engine.drains();
    await drains.drain('h1');
    await drains.drain('h1');
    await drains.undrain('never');
    expect((await engine.drains()).has('h1')).toBe(true);
    await drains.undrain('h1');
    expect((await engine.drains()).has('h1')).toBe(false);
  });

  it('a forget takes the drain with it and is heard once by whoever listens', async () => {
    const drains = await engine.drains();
    const heard: string[] = [];
    drains.onForget((name) => heard.push(name));
    await drains.drain('gone');
    await drains.forget('gone');
    expect(drains.has('gone')).toBe(false);
    // PostgreSQL's replicas, this one too, hear it as the others' news (NOTIFY).
    await eventually(() => heard.length > 0, 'the forget to be heard');
    expect(heard).toEqual(['gone']);
    expect((await engine.drains()).has('gone')).toBe(false);
  });

  it.runIf(engine.name === 'postgres')(
    'another replica hears a drain, an undrain and a forget while it runs',
    async () => {
      const a = await engine.drains();
      const b = await engine.drains();
      const forgotten: string[] = [];
      b.onForget((name) => forgotten.push(name));
      await a.drain('h2');
      await eventually(() => b.has('h2'), 'B to hear the drain');
      await a.undrain('h2');
      await eventually(() => !b.has('h2'), 'B to hear the undrain');
      await a.drain('h2');
      await eventually(() => b.has('h2'), 'B to hear the second drain');
      await a.forget('h2');
      await eventually(() => forgotten.includes('h2') && !b.has('h2'), 'B to hear the forget');
    },
  );
});
