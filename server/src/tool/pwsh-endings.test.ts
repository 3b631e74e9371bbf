/**
 * The special endings of a pwsh call over real PowerShell 7: timeout with a reset, `exit N`,
 * waiting for input (Read-Host, PromptForChoice, a native program reading stdin) and typing
 * into it, control keys, and cancellation. Skipped, with one line saying why, where pwsh is
 * not installed (see pwsh-check.ts).
 */

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestEngine } from '../../test/support/engine.ts';
import { processesRunning } from '../../test/support/host-processes.ts';
import { PWSH, startPwshEngine } from '../../test/support/pwsh.ts';

const RESET_LINE =
  'The persistent pwsh shell was reset; the next pwsh call starts from the workspace with a ' +
  'fresh current directory and environment.';

let engine: TestEngine;
let quick: TestEngine;

/** Running or sleeping; a zombie (killed, not yet reaped by init) counts as ended. */
/** How many `sleep SECONDS` run on the host (pids a sandboxed shell prints are its own). */
const sleepers = (seconds: string) => processesRunning('sleep', seconds).length;

describe.skipIf(PWSH === null)('pwsh endings', () => {
  beforeAll(() => {
    engine = startPwshEngine();
    // The deadline covers a new pwsh's start-up, which took 8-13 s at a load of 14: at 4 s
    // the set-up calls themselves timed out under CI's load (their reset took the sleeper
    // with it), and the state this test checks was never set.
    quick = startPwshEngine({ flags: ['--timeout-ms', '20000'] });
  });
  afterAll(async () => {
    await engine.close();
    await quick.close();
  });

  describe('timeout', () => {
    it('returns the partial output with the pwsh notices and resets the whole tree', async () => {
      expect(
        await quick.call("Set-Location /; $env:LEFT_BEHIND = 'yes'; $kept = 1", 'timeout'),
      ).toBe('');
      expect(
        await quick.call(
          '$null = Start-Process -FilePath sleep -ArgumentList 306 -PassThru',
          'timeout',
        ),
      ).toBe('');
      // Start-Process may answer before the program has replaced pwsh's copy of itself.
      await expect.poll(() => sleepers('306'), { timeout: 10_000 }).toBe(1);
      expect(await quick.call("'partial'; Start-Sleep 60", 'timeout')).toBe(
        'Your command timed out after 20 seconds or experienced an OOM error. Below is partial output:\n' +
          `partial\n${RESET_LINE}`,
      );
      expect(await quick.call('(Get-Location).Path; "[$env:LEFT_BEHIND][$kept]"', 'timeout')).toBe(
        `${quick.workspaceOf('timeout')}\n[][]`,
      );
      // The reset ended the whole tree, a program the shell started included.
      expect(sleepers('306')).toBe(0);
    }, 120_000);
  });

  describe('the shell itself exits', () => {
    it('reports exit N with the pwsh reset line, and the next call starts afresh', async () => {
      await engine.call('$before = 1', 'exit');
      expect(await engine.call("'bye'; exit 3", 'exit')).toBe(
        `bye\n[shell exited: code 3]\n${RESET_LINE}`,
      );
      expect(await engine.call('"back [$before]"', 'exit')).toBe('back []');
    });
  });

  describe('waiting for input', () => {
    it('returns at once when Read-Host waits, then types the next call into it', async () => {
      expect(await engine.call('$name = Read-Host \'Name\'; "hello $name"', 'read')).toBe(
        'Name: \n[waiting for input: pwsh]',
      );
      // What was typed is not echoed back in the result; the command's output follows.
      expect(await engine.call('Ada Lovelace é 日本', 'read')).toBe('hello Ada Lovelace é 日本');
      expect(await engine.call('"still $name"', 'read')).toBe('still Ada Lovelace é 日本');
    });

    it('waits in $host.UI.PromptForChoice and finishes with the choice', async () => {
      expect(
        await engine.call(
          "$c = $host.UI.PromptForChoice('Deploy', 'Go on?', @('&Yes', '&No'), 1); \"choice=$c\"",
          'choice',
        ),
      ).toBe(
        '\nDeploy\nGo on?\n[Y] Yes  [N] No  [?] Help (default is "N"): \n[waiting for input: pwsh]',
      );
      expect(await engine.call('y', 'choice')).toBe('choice=0');
    });

    it('names a native program reading stdin, and Ctrl-D ends its input', async () => {
      expect(await engine.call('cat', 'cat')).toBe('[waiting for input: cat]');
      expect(await engine.call('line one', 'cat')).toBe('line one\n[waiting for input: cat]');
      expect(await engine.call('\u0004', 'cat')).toBe('');
      expect(await engine.call("'shell again'", 'cat')).toBe('shell again');
    });

    it('delivers Ctrl-C as the keystroke, to a native program and to Read-Host', async () => {
      expect(await engine.call('cat', 'ctrl-c')).toBe('[waiting for input: cat]');
      expect(await engine.call('\u0003', 'ctrl-c')).toBe('[exit code: 130]');
      expect(await engine.call("Read-Host 'Say'", 'ctrl-c')).toBe(
        'Say: \n[waiting for input: pwsh]',
      );
      expect(await engine.call('\u0003', 'ctrl-c')).toMatch(/\[exit code: 130\]$/);
      expect(await engine.call("'ok'", 'ctrl-c')).toBe('ok');
    });

    it('drives a REPL: python3, print(6*7), exit()', async () => {
      expect(await engine.call('/usr/bin/python3 -q', 'repl')).toBe(
        '>>> \n[waiting for input: python3]',
      );
      expect(await engine.call('print(6*7)', 'repl')).toBe(
        '42\n>>> \n[waiting for input: python3]',
      );
      expect(await engine.call('exit()', 'repl')).toBe('');
      expect(await engine.call("'pwsh again'", 'repl')).toBe('pwsh again');
    });

    it('does not mistake a pipe read for a terminal read', async () => {
      expect(await engine.call("bash -c 'sleep 0.3' | cat; 'piped'", 'pipe')).toBe('piped');
    });
  });

  describe('cancellation', () => {
    it('resets the shell when the caller goes away mid-call', async () => {
      await engine.call('Set-Location /; $kept = 1', 'cancel');
      const controller = new AbortController();
      const pending = engine.call('Start-Sleep 300', 'cancel', controller.signal);
      await new Promise((resolve) => setTimeout(resolve, 500));
      controller.abort();
      await expect(pending).rejects.toMatchObject({ code: 'CANCELLED', status: 499 });
      expect(await engine.call('(Get-Location).Path; "[$kept]"', 'cancel')).toBe(
        `${engine.workspaceOf('cancel')}\n[]`,
      );
    });
  });
});
