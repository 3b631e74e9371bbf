/**
 * Exact endings in the sandbox (issue 22.3): a shell that exits with 129–255 is reported as
 * `[shell exited: code N]`, a shell killed by a signal as that signal, although bubblewrap's
 * own exit status cannot tell the two apart (128 + N).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEngine, type TestEngine } from './support/engine.ts';
import { SANDBOX_WORKS } from './support/sandbox-check.ts';

const RESET =
  'The persistent bash shell was reset; the next bash call starts from the workspace with a ' +
  'fresh current directory and environment.';

/** Closing every shell of the file takes long with both cores busy (not what is tested). */
const CLOSE_LIMIT_MS = 120_000;

let engine: TestEngine;
let agents = 0;

describe.runIf(SANDBOX_WORKS)('endings of a sandboxed shell', () => {
  beforeAll(() => {
    engine = startEngine({ flags: ['--sandbox', 'bwrap', '--timeout-ms', '20000'] });
  });
  afterAll(async () => {
    await engine.close();
  }, CLOSE_LIMIT_MS);

  const rows: [string, string][] = [
    ['exit 147', '[shell exited: code 147]'],
    ['exit 129', '[shell exited: code 129]'],
    ['exit 255', '[shell exited: code 255]'],
    [`exec sh -c 'exit 135'`, '[shell exited: code 135]'],
    ['exit 3', '[shell exited: code 3]'],
    ['kill -KILL $$', '[shell killed by signal: SIGKILL]'],
    ['kill -SEGV $$', '[shell killed by signal: SIGSEGV]'],
  ];
  for (const [command, line] of rows) {
    it(`reports ${JSON.stringify(command)} as ${line}`, async () => {
      const agent = `ending-${++agents}`;
      expect(await engine.call('echo up', agent)).toBe('up');
      expect(await engine.call(command, agent)).toBe(`${line}\n${RESET}`);
      expect(await engine.call('echo fresh', agent)).toBe('fresh');
    });
  }

  it('keeps an interactive shell that is sent SIGTERM, as a terminal does', async () => {
    const agent = `ending-${++agents}`;
    expect(await engine.call('X=kept', agent)).toBe('');
    expect(await engine.call('kill -TERM $$; echo "$X"', agent)).toBe('kept');
  });
});
