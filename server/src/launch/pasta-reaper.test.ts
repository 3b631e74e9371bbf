/**
 * The pasta reaper (pasta-reaper.ts), with a real perl reaper and a real server process that
 * dies: what carries a pid file it was told of is ended, whatever its name (the host prelude
 * that was still to exec pasta when the server died was left running), and the file's folder
 * goes. Needs only perl, as the reaper does.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';

const REAPER_MODULE = new URL('./pasta-reaper.ts', import.meta.url).pathname;
const POLL = { timeout: 10_000, interval: 50 };

let scratch: string | undefined;

afterEach(() => {
  if (scratch !== undefined) rmSync(scratch, { recursive: true, force: true });
  scratch = undefined;
});

describe('the pasta reaper', () => {
  it('ends whatever carries a pid file it was told of once the server is gone, and removes its folder', async () => {
    scratch = mkdtempSync(join(tmpdir(), 'jumpseat-reaper-test-'));
    const dir = mkdtempSync(join(scratch, 'jumpseat-net-'));
    const pidFile = join(dir, 'pasta.pid');
    writeFileSync(pidFile, '');
    // The prelude about to become pasta: not named pasta yet, its arguments carry the file.
    const prelude = spawn('perl', ['-e', 'sleep 60', '--', '--pid', pidFile], {
      stdio: 'ignore',
    });
    const preludeEnded = new Promise<string | null>((resolve) =>
      prelude.once('exit', (_code, signal) => resolve(signal)),
    );
    // A server: starts its reaper, tells it of the file, and dies without a word more.
    const server = spawn(
      process.execPath,
      [
        '--import',
        'tsx',
        '--input-type=module',
        '-e',
        `import { startPastaReaper } from ${JSON.stringify(REAPER_MODULE)};
         startPastaReaper('JUMPSEAT_REAPER_TEST', 'reaper-test').starting(${JSON.stringify(pidFile)});
         setTimeout(() => process.kill(process.pid, 'SIGKILL'), 300);`,
      ],
      { stdio: 'ignore' },
    );
    try {
      await new Promise((resolve) => server.once('exit', resolve));
      const stillRunning = new Promise((resolve) =>
        setTimeout(() => resolve('still running'), POLL.timeout),
      );
      expect(await Promise.race([preludeEnded, stillRunning])).toBe('SIGKILL');
      await expect.poll(() => existsSync(dir), POLL).toBe(false);
    } finally {
      prelude.kill('SIGKILL');
    }
  });
});
