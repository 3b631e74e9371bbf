import { describe, expect, it, vi } from 'vitest';
import { ShellStartUp } from './shell-start.ts';

const INSTALL = ` . '/data/shells/1-2/abc/integration.bash'`;

async function refusal(start: ShellStartUp): Promise<string> {
  return start.ready.then(
    () => 'ready',
    (error: Error) => error.message,
  );
}

describe('a shell that exits during start-up', () => {
  it('is refused with the last line the launch printed, not the typed install line or a mark', async () => {
    const start = new ShellStartUp();
    start.heard(Buffer.from(`${INSTALL}\r\n`));
    start.heard(Buffer.from('jumpseat: workspace quota: /w/.quota/a.ext4 is still in use\r\n'));
    start.heard(
      Buffer.from(`\u001b]7717;0123456789ABCDEF0123456789ABCDEF;C125\u0007${INSTALL}\r\n`),
    );
    start.exited('bash', { code: 125, signal: null }, INSTALL);
    expect(await refusal(start)).toBe(
      'bash exited during start-up (code 125): jumpseat: workspace quota: /w/.quota/a.ext4 is still in use',
    );
  });

  it('keeps only the end of a flood, and quotes nothing when nothing was printed', async () => {
    const flooded = new ShellStartUp();
    flooded.heard(Buffer.from('x'.repeat(100_000)));
    flooded.heard(Buffer.from('\nbwrap: Creating new namespace failed\n'));
    flooded.exited('pwsh', { code: 1, signal: null });
    expect(await refusal(flooded)).toBe(
      'pwsh exited during start-up (code 1): bwrap: Creating new namespace failed',
    );
    // A mark whose introducer fell out of the kept window is not quoted (its nonce).
    const cut = new ShellStartUp();
    cut.heard(
      Buffer.from(`bwrap: No permissions to create new namespace\n${'z'.repeat(3000)}\u001b]`),
    );
    const body = '7717;0123456789ABCDEF0123456789ABCDEF;C1\u0007\n';
    cut.heard(Buffer.from(body + '\n'.repeat(2048 - body.length)));
    cut.exited('bash', { code: 1, signal: null });
    expect(await refusal(cut)).toBe('bash exited during start-up (code 1)');
    const silent = new ShellStartUp();
    silent.exited('bash', { code: null, signal: 'SIGKILL' });
    expect(await refusal(silent)).toBe('bash exited during start-up (killed by SIGKILL)');
  });

  it('forgets what it heard once ready', async () => {
    const start = new ShellStartUp();
    start.heard(Buffer.from('early words\n'));
    start.succeed();
    start.heard(Buffer.from('later words\n'));
    start.exited('bash', { code: 1, signal: null });
    expect(await refusal(start)).toBe('ready');
  });
});

describe('a shell that hangs during start-up', () => {
  it('is refused after 15 s and reset, saying what its processes were doing', async () => {
    vi.useFakeTimers();
    try {
      const resets: string[] = [];
      const hung = new ShellStartUp();
      const installing = hung.install({
        name: 'bash',
        prepare: () => Promise.resolve(INSTALL),
        prepared: () => undefined,
        reset: () => resets.push('reset'),
        stillRunning: () => 'bash (S, do_wait), bwrap (S, do_wait), perl (D, lock_mount)',
      });
      await installing;
      await vi.advanceTimersByTimeAsync(14_999);
      expect(resets).toEqual([]);
      await vi.advanceTimersByTimeAsync(1);
      expect(await refusal(hung)).toBe(
        'bash did not become ready within 15 s (its processes: bash (S, do_wait), bwrap (S, do_wait), perl (D, lock_mount))',
      );
      expect(resets).toEqual(['reset']);
      // Nothing known (the processes are gone): the message is the plain one.
      const gone = new ShellStartUp();
      await gone.install({
        name: 'pwsh',
        prepare: () => Promise.resolve(INSTALL),
        prepared: () => undefined,
        reset: () => undefined,
        stillRunning: () => '',
      });
      await vi.advanceTimersByTimeAsync(15_000);
      expect(await refusal(gone)).toBe('pwsh did not become ready within 15 s');
    } finally {
      vi.useRealTimers();
    }
  });

  it('ended on purpose while it starts is refused as such, and its time limit stops', async () => {
    vi.useFakeTimers();
    try {
      const resets: string[] = [];
      const ended = new ShellStartUp();
      await ended.install({
        name: 'bash',
        prepare: () => Promise.resolve(INSTALL),
        prepared: () => undefined,
        reset: () => resets.push('reset'),
      });
      ended.abandon();
      expect(await refusal(ended)).toBe('the shell was ended during start-up');
      expect(ended.wasAbandoned).toBe(true);
      // Its exit, which the end brings, changes nothing; the 15 s pass without a reset.
      ended.exited('bash', { code: null, signal: 'SIGHUP' });
      await vi.advanceTimersByTimeAsync(15_000);
      expect(resets).toEqual([]);
      expect(await refusal(ended)).toBe('the shell was ended during start-up');
      // A start that had failed already is not marked abandoned by an end after it.
      const failed = new ShellStartUp();
      failed.exited('bash', { code: 1, signal: null });
      failed.abandon();
      expect(failed.wasAbandoned).toBe(false);
      expect(await refusal(failed)).toBe('bash exited during start-up (code 1)');
    } finally {
      vi.useRealTimers();
    }
  });
});
