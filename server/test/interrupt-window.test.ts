/**
 * An interrupt accepted for a call stops that call's command, or the command never runs
 * (issue 22): sent as the call starts (the page shows `running` before the shell has read
 * the call line), it used to hit bash at its prompt, and the command ran anyway. Each round
 * interrupts at a different moment of the start, through the same path as the page's button.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { liveShellOf, startEngine, type TestEngine } from './support/engine.ts';

/** Rounds per test; each interrupts a little later in the call's start (0–5 ms). */
const ROUNDS = 12;
const LATEST_DELAY_MS = 5;
/** A lost interrupt shows as the timeout text long before the command's 300 s. */
const CALL_TIMEOUT_MS = 20_000;
const INTERRUPTED = '[a human used this shell: interrupted the running command]\n[exit code: 130]';
const viewer = { id: 'viewer-1', name: 'Ida', role: 'operator' };

let engine: TestEngine;

beforeAll(() => {
  engine = startEngine({ flags: ['--timeout-ms', String(CALL_TIMEOUT_MS)] });
});
afterAll(async () => {
  await engine.close();
});

describe('an interrupt as a call starts', () => {
  it('always ends the call with [exit code: 130], the command run at most once', async () => {
    const agent = 'interrupt-window';
    expect(await engine.call('echo ready', agent)).toBe('ready');
    const shell = liveShellOf(engine, agent);
    const log = join(engine.workspaceOf(agent), 'runs.log');
    for (let round = 0; round < ROUNDS; round++) {
      const call = engine.call(`echo ${round} >>runs.log; sleep 300`, agent);
      // The page offers Interrupt once it shows `running`: from then on, at once or a little later.
      while (shell.state !== 'running') await new Promise((resolve) => setImmediate(resolve));
      const delayMs = round % (LATEST_DELAY_MS + 1);
      if (delayMs > 0) await new Promise((resolve) => setTimeout(resolve, delayMs));
      expect(await shell.human.interrupt(viewer)).toBe(true);
      expect(await call).toBe(INTERRUPTED);
      expect(await engine.call('echo ok', agent)).toBe('ok');
    }
    // Cancelled before it ran, or stopped as it ran: never run twice, never run on afterwards.
    const runs = readFileSync(log, 'utf8').split('\n').filter(Boolean).map(Number);
    expect(new Set(runs).size).toBe(runs.length);
    expect(await engine.call('jobs; pgrep -x sleep || echo none', agent)).toBe('none');
  });
});
