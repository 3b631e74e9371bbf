/**
 * pwsh keeps working after what breaks its integration (issue 14): tracing, removing the
 * integration's state, strict modes; and the deadline covers a new pwsh's start-up. Over real
 * PowerShell 7; skipped, with one line saying why, where pwsh is not installed (pwsh-check.ts).
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestEngine } from './support/engine.ts';
import { PWSH, startPwshEngine } from './support/pwsh.ts';

let engine: TestEngine;
let agents = 0;

/** Text only the wrapper or the marks could produce. */
const WRAPPER_TRACES = /__jumpseat|integration\.ps1|7717;|[0-9A-F]{32}/;

async function shellWithState(): Promise<string> {
  const agent = `pwsh-idiom-${++agents}`;
  expect(await engine.call('$Kept = "yes"; Set-Location /tmp', agent)).toBe('');
  return agent;
}

describe.skipIf(PWSH === null)('pwsh survives what commands do to it', () => {
  beforeAll(() => {
    engine = startPwshEngine({ flags: ['--timeout-ms', '20000'] });
  });
  afterAll(async () => {
    await engine.close();
  });

  const rows: [string, string][] = [
    ['Set-PSDebug -Strict', 'ok ü'],
    ['Set-StrictMode -Version Latest', 'ok ü'],
    ['$ErrorActionPreference = "Stop"', 'ok ü'],
    ['Remove-Variable __jumpseat -Scope Global -Force', 'ok ü'],
    ['Remove-Variable __jumpseat_sb -Scope Global -Force', 'ok ü'],
    ['function prompt { "PS> " }', 'ok ü'],
    [
      'function Write-Host { "hijack" }; function Get-History { "x" }; function Set-PSDebug { }',
      'ok ü',
    ],
    ['Write-Host -NoNewline "A`e]7717;"; ""', 'ok ü'],
    ['[Console]::OutputEncoding = [Text.Encoding]::ASCII', 'ok ?'],
  ];
  for (const [row, answer] of rows) {
    it(`after ${JSON.stringify(row)}`, async () => {
      const agent = await shellWithState();
      const first = await engine.call(row, agent);
      expect(first).not.toMatch(WRAPPER_TRACES);
      expect(await engine.call('echo "ok ü"', agent)).toBe(answer);
      expect(await engine.call('"$Kept $PWD"', agent)).toBe('yes /tmp');
    });
  }

  for (const level of [1, 2]) {
    it(`prints no wrapper source under Set-PSDebug -Trace ${level}, and the next call is untraced`, async () => {
      const agent = await shellWithState();
      const traced = await engine.call(`Set-PSDebug -Trace ${level}; "x"`, agent);
      // The command's own statement is traced; nothing of the call line after it (issue 22.4).
      expect(traced).toContain('"x"');
      expect(traced).not.toMatch(/__jumpseat|Set-PSDebug -Off/);
      expect(traced).not.toMatch(/function global:|__jumpseat_state|\$j\./);
      expect(await engine.call('echo "ok ü"', agent)).toBe('ok ü');
      expect(await engine.call('"$Kept $PWD"', agent)).toBe('yes /tmp');
    });
  }

  it('repairs a shell whose integration functions a command removed', async () => {
    const agent = await shellWithState();
    await engine.call('Remove-Item function:__jumpseat_pre, function:__jumpseat_post', agent);
    expect(await engine.call('echo "ok ü"', agent)).toBe('ok ü');
    expect(await engine.call('"$Kept $PWD"', agent)).toBe('yes /tmp');
  });

  it('continues a pwsh stopped by a signal, with its state', async () => {
    // Nobody is there to `fg` it: the call ran to its deadline, and the shell was reset.
    const agent = await shellWithState();
    expect(await engine.call('/bin/kill -STOP $PID; "after-stop"', agent)).toBe('after-stop');
    expect(await engine.call('"$Kept $PWD"', agent)).toBe('yes /tmp');
  });
});

describe.skipIf(PWSH === null)('the deadline', () => {
  it('covers a new pwsh shell starting, whose command then never runs', async () => {
    // pwsh needs well over 300 ms to start: the deadline passes before its prompt.
    const quick = startPwshEngine({ flags: ['--timeout-ms', '300'] });
    try {
      const marker = join(quick.workspaceOf('late'), 'ran');
      expect(await quick.call(`New-Item -ItemType File '${marker}' | Out-Null`, 'late')).toBe(
        'Your command timed out after 0 seconds or experienced an OOM error. Below is partial output:\n' +
          'The persistent pwsh shell was reset; the next pwsh call starts from the workspace with a fresh current directory and environment.',
      );
      expect(existsSync(marker)).toBe(false);
    } finally {
      await quick.close();
    }
  });
});

describe.skipIf(PWSH === null)('pwsh: $?, $^ and $$ as the line before left them', () => {
  beforeAll(() => {
    engine = startPwshEngine({ flags: ['--timeout-ms', '20000'] });
  });
  afterAll(async () => {
    await engine.close();
  });

  /** Calls before the last, the last, and its exact result: on a fresh agent's shell. */
  const rows: [string[], string, string][] = [
    // pwsh sets `$^` and `$$` from the line it read before: never the call line's words.
    [[], '"[$^] [$$]"', '[] []'],
    [['Write-Output a b'], '"[$^] [$$]"', '[Write-Output] [b]'],
    [['Write-Output "x y" # a comment'], '"[$^] [$$]"', '[Write-Output] [x y]'],
    [['$x = 1; $x'], '"[$^] [$$]"', '[$x] [$x]'],
    [["bash -c 'exit 3'"], '"$? $LASTEXITCODE"', 'False 3'],
    [["bash -c 'exit 3'", '$?'], '$?', 'True'],
    [['throw "boom"'], '$?', 'False'],
    [['Write-Output ok'], '$?', 'True'],
    // Giving `$?` back records no error.
    [["bash -c 'exit 3'"], '$Error.Count', '0'],
  ];
  for (const [before, last, result] of rows) {
    it(`${before.join(' ⏎ ')} ⏎ ${last}`, async () => {
      const agent = `pwsh-last-${++agents}`;
      for (const text of before) await engine.call(text, agent);
      expect(await engine.call(last, agent)).toBe(result);
    });
  }
});
