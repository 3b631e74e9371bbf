/**
 * A shell that cannot start is refused to its caller with the reason, and said to the operator
 * in one warning line: what the shell printed is agent-controlled bytes, so a control or format
 * character in it (here C1's CSI and a bidi override) reaches no caller, page, log or terminal
 * as itself. The "pwsh" here is a script that complains and exits, as a broken install or a
 * sandbox that refuses would.
 */
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { JumpseatError } from '../src/errors.ts';
import { startEngine, type TestEngine } from './support/engine.ts';

let scratch: string;
let engine: TestEngine;
const warnings: string[] = [];

beforeAll(() => {
  scratch = mkdtempSync(join(tmpdir(), 'jumpseat-start-warning-'));
  const broken = join(scratch, 'pwsh');
  writeFileSync(
    broken,
    "#!/bin/sh\nprintf 'cannot start: \\302\\2332J \\342\\200\\256red\\n'\nexit 3\n",
  );
  chmodSync(broken, 0o755);
  engine = startEngine({
    flags: ['--sandbox', 'off', '--pwsh', broken],
    warn: (line) => warnings.push(line),
  });
});
afterAll(async () => {
  await engine.close();
  rmSync(scratch, { recursive: true, force: true });
});

describe('a shell that cannot start', () => {
  it('is refused with its reason, and the operator gets one line, the bytes escaped in both', async () => {
    const refused = await engine.call('echo hi', 'broken-agent', undefined, 'pwsh').then(
      () => null,
      (error: unknown) => error,
    );
    expect(refused).toBeInstanceOf(JumpseatError);
    const { code, message } = refused as JumpseatError;
    expect(code).toBe('SHELL_UNAVAILABLE');
    expect(message).toBe(
      'pwsh exited during start-up (code 3): cannot start: \\u009b2J \\u202ered',
    );
    expect(warnings).toEqual([
      'jumpseat: warning: a shell of agent "broken-agent" could not start: pwsh exited during start-up (code 3): cannot start: \\u009b2J \\u202ered',
    ]);
    // bash is unaffected, and a start that works says nothing.
    expect(await engine.call('echo fine', 'broken-agent')).toBe('fine');
    expect(warnings).toHaveLength(1);
  });

  it('ended on purpose while it starts (the server stops) is refused as such, and not said', async () => {
    // A "pwsh" that would take 30 s to fail: the engine is closed while it starts.
    const slow = join(scratch, 'slow-pwsh');
    writeFileSync(slow, '#!/bin/sh\nsleep 30\nexit 3\n');
    chmodSync(slow, 0o755);
    const said: string[] = [];
    const closing = startEngine({
      flags: ['--sandbox', 'off', '--pwsh', slow],
      warn: (line) => said.push(line),
    });
    const call = closing.call('echo hi', 'leaving-agent', undefined, 'pwsh').then(
      () => null,
      (error: unknown) => error,
    );
    const shell = await vi.waitUntil(() => closing.tools.registry.shells()[0], { timeout: 10_000 });
    expect(shell.state).toBe('starting');
    await closing.close();
    const refused = await call;
    expect(refused).toBeInstanceOf(Error);
    expect(said).toEqual([]);
  });
});
