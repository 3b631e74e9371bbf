/**
 * The special endings of a bash call over a real shell: timeout with the whole tree ended,
 * the shell exiting, waiting for input (including the shell's own `read`), typing into the
 * waiting program, control keys, full-screen programs, and cancellation.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEngine, type TestEngine } from '../../test/support/engine.ts';
import { processesRunning } from '../../test/support/host-processes.ts';

const RESET_LINE =
  'The persistent bash shell was reset; the next bash call starts from the workspace with a ' +
  'fresh current directory and environment.';

let engine: TestEngine;
let quick: TestEngine;

beforeAll(() => {
  engine = startEngine();
  quick = startEngine({ flags: ['--timeout-ms', '1500'] });
});
/** Tries of a first call that may time out while the shell starts (see warm). */
const WARM_TRIES = 5;

/**
 * The short deadline covers a new shell's start-up too, which a loaded machine can take past
 * 1.5 s (a start ends in a timeout and a reset): the agent's shell is started first.
 */
async function warm(agent: string): Promise<void> {
  for (let attempt = 0; attempt < WARM_TRIES; attempt++) {
    if ((await quick.call('true', agent)) === '') return;
  }
  throw new Error(`${agent}'s shell did not start within ${WARM_TRIES} tries of 1.5 s`);
}

afterAll(async () => {
  await engine.close();
  await quick.close();
});

/** How many `sleep SECONDS` run on the host (pids a sandboxed shell prints are its own). */
const sleepers = (seconds: string) => processesRunning('sleep', seconds).length;

describe('timeout', () => {
  it('returns the partial output with the exact notices and resets the shell', async () => {
    await warm('timeout-a');
    await quick.call('cd /; export LEFT_BEHIND=yes', 'timeout-a');
    const output = await quick.call('echo partial; sleep 30', 'timeout-a');
    expect(output).toBe(
      'Your command timed out after 2 seconds or experienced an OOM error. Below is partial output:\n' +
        `partial\n${RESET_LINE}`,
    );
    expect(await quick.call('pwd; echo "[${LEFT_BEHIND-}]"', 'timeout-a')).toBe(
      `${quick.workspaceOf('timeout-a')}\n[]`,
    );
  });

  it('writes no blank line when there was no partial output', async () => {
    await warm('timeout-b');
    expect(await quick.call('sleep 30', 'timeout-b')).toBe(
      'Your command timed out after 2 seconds or experienced an OOM error. Below is partial output:\n' +
        RESET_LINE,
    );
  });

  it('ends the whole process tree, background jobs included', async () => {
    await warm('timeout-c');
    await quick.call('sleep 301 & sleep 302 </dev/null & setsid -f sleep 303', 'timeout-c');
    await expect.poll(() => [sleepers('301'), sleepers('302'), sleepers('303')]).toEqual([1, 1, 1]);
    await quick.call('sleep 30', 'timeout-c');
    expect([sleepers('301'), sleepers('302'), sleepers('303')]).toEqual([0, 0, 0]);
  });
});

describe('the shell itself exits', () => {
  it('reports the exit code and the reset', async () => {
    expect(await engine.call('echo bye; exit 3', 'exit-a')).toBe(
      // No `exit` line: the command runs from a sourced file (bash-errexit.ts), as in a script.
      `bye\n[shell exited: code 3]\n${RESET_LINE}`,
    );
    expect(await engine.call('echo back', 'exit-a')).toBe('back');
  });

  it('reports the signal that killed it', async () => {
    expect(await engine.call('kill -9 $$', 'exit-b')).toBe(
      `[shell killed by signal: SIGKILL]\n${RESET_LINE}`,
    );
  });

  it('reports an exec of something that ends', async () => {
    expect(await engine.call('exec true', 'exit-c')).toBe(`[shell exited: code 0]\n${RESET_LINE}`);
  });

  it('ends jobs the dead shell left behind', async () => {
    await engine.call('sleep 304 & (setsid sleep 305 &)', 'exit-d');
    // Started in the background: they may exec a moment after the call has returned.
    await expect.poll(() => [sleepers('304'), sleepers('305')]).toEqual([1, 1]);
    await engine.call('exit 0', 'exit-d');
    expect([sleepers('304'), sleepers('305')]).toEqual([0, 0]);
  });
});

describe('waiting for input', () => {
  it("returns at once when the shell's own read waits, then types the next call into it", async () => {
    expect(await engine.call('read x', 'wait-a')).toBe('[waiting for input: bash]');
    expect(await engine.call('typed answer', 'wait-a')).toBe('');
    expect(await engine.call('echo "got: $x"', 'wait-a')).toBe('got: typed answer');
  });

  it('shows a question asked before the wait, and finishes with the exit status', async () => {
    expect(
      await engine.call(
        'read -p "Continue? [y/N] " a; echo "answer=$a"; exit_with() { return 4; }; exit_with',
        'wait-b',
      ),
    ).toBe('Continue? [y/N] \n[waiting for input: bash]');
    expect(await engine.call('y', 'wait-b')).toBe('answer=y\n[exit code: 4]');
  });

  it('drives a REPL as a person would: python3, print(6*7), exit()', async () => {
    expect(await engine.call('/usr/bin/python3 -q', 'wait-c')).toBe(
      '>>> \n[waiting for input: python3]',
    );
    expect(await engine.call('print(6*7)', 'wait-c')).toBe(
      '42\n>>> \n[waiting for input: python3]',
    );
    expect(await engine.call('exit()', 'wait-c')).toBe('');
    expect(await engine.call('echo shell again', 'wait-c')).toBe('shell again');
  });

  it('names a program reading stdin, and Ctrl-D ends its input', async () => {
    expect(await engine.call('cat', 'wait-d')).toBe('[waiting for input: cat]');
    expect(await engine.call('line one', 'wait-d')).toBe('line one\n[waiting for input: cat]');
    expect(await engine.call('\u0004', 'wait-d')).toBe('');
  });

  it('delivers Ctrl-C as the keystroke', async () => {
    expect(await engine.call('cat', 'wait-e')).toBe('[waiting for input: cat]');
    expect(await engine.call('\u0003', 'wait-e')).toBe('[exit code: 130]');
    expect(await engine.call('echo ok', 'wait-e')).toBe('ok');
  });

  it('delivers Ctrl-Z as the keystroke', async () => {
    expect(await engine.call('cat', 'wait-f')).toBe('[waiting for input: cat]');
    const stopped = await engine.call('\u001a', 'wait-f');
    expect(stopped).toMatch(/Stopped\s+cat\n\[exit code: 148\]$/);
    // The stopped job ends in this call, and its notice is this call's: bash may still call
    // it stopped then (bash-job-notices.ts).
    expect(await engine.call('kill %1; echo ok', 'wait-f')).toMatch(
      /^ok(\n\[1\]\+ +(Terminated|Stopped) +cat)?$/,
    );
  });

  it('does not mistake a pipe read for a terminal read', async () => {
    expect(await engine.call('sleep 0.3 | cat; echo piped', 'wait-g')).toBe('piped');
  });

  it('shows a full-screen program as the text of its screen', async () => {
    await engine.call("seq -f 'line %g' 1 100 > lines.txt", 'wait-h');
    const screen = await engine.call('less lines.txt', 'wait-h');
    expect(screen).toMatch(/^line 1\nline 2\n/);
    expect(screen).toContain('line 39');
    expect(screen).not.toContain('line 41');
    expect(screen).toMatch(/\n\[waiting for input: less\]$/);
    expect(await engine.call('q', 'wait-h')).toBe('');
    expect(await engine.call('echo after less', 'wait-h')).toBe('after less');
  });
});

describe('cancellation', () => {
  it('resets the shell when the caller goes away mid-call', async () => {
    await engine.call('cd /; export KEPT=1', 'cancel-a');
    const controller = new AbortController();
    const pending = engine.call(
      'sleep 300 & echo $! > /tmp/jumpseat-cancel-pid; sleep 300',
      'cancel-a',
      controller.signal,
    );
    await new Promise((resolve) => setTimeout(resolve, 300));
    controller.abort();
    await expect(pending).rejects.toMatchObject({ code: 'CANCELLED', status: 499 });
    expect(await engine.call('pwd; echo "[${KEPT-}]"', 'cancel-a')).toBe(
      `${engine.workspaceOf('cancel-a')}\n[]`,
    );
  });

  it('drops a queued call whose caller went away, without touching the shell', async () => {
    await engine.call('export KEPT=2', 'cancel-b');
    const controller = new AbortController();
    const running = engine.call('sleep 0.5; echo first', 'cancel-b');
    const queued = engine.call('echo never', 'cancel-b', controller.signal);
    controller.abort();
    await expect(queued).rejects.toMatchObject({ code: 'CANCELLED' });
    expect(await running).toBe('first');
    expect(await engine.call('echo "$KEPT"', 'cancel-b')).toBe('2');
  });
});
