/**
 * The pwsh result text over real PowerShell 7: the exit status rules, rendering (no colour,
 * no progress, concise errors, UTF-8), clipping with the pwsh notice, and what persists.
 * Skipped, with one line saying why, where pwsh is not installed (see pwsh-check.ts).
 */
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestEngine } from '../../test/support/engine.ts';
import { PWSH, startPwshEngine } from '../../test/support/pwsh.ts';

const CLIP_NOTICE =
  '<response clipped><NOTE>To save on context only part of this file has been shown to you. ' +
  'You should retry this tool after you have searched inside the file with Select-String in ' +
  'order to find the line numbers of what you are looking for.</NOTE>';

const NOT_FOUND = "Get-Item: Cannot find path '/nope' because it does not exist.";

let engine: TestEngine;
let small: TestEngine;

describe.skipIf(PWSH === null)('pwsh results', () => {
  beforeAll(() => {
    engine = startPwshEngine();
    // A service account's SHELL, which the shell must not take for its own.
    const env = { ...process.env, SHELL: '/usr/sbin/nologin' };
    small = startPwshEngine({ flags: ['--max-output-chars', '100'], env });
  });
  afterAll(async () => {
    await engine.close();
    await small.close();
  });

  describe('exit status', () => {
    it("returns a native program's exact code, again when it repeats", async () => {
      expect(await engine.call("bash -c 'echo out; exit 7'", 'status')).toBe('out\n[exit code: 7]');
      expect(await engine.call("bash -c 'exit 7'", 'status')).toBe('[exit code: 7]');
      expect(await engine.call("bash -c 'exit 0'", 'status')).toBe('');
    });

    it('does not report an earlier call\u2019s native code, but keeps $LASTEXITCODE', async () => {
      await engine.call("bash -c 'exit 5'", 'status');
      expect(await engine.call("'no native program here'", 'status')).toBe(
        'no native program here',
      );
      expect(await engine.call('$LASTEXITCODE', 'status')).toBe('5');
    });

    it('returns 1 for throw and for -ErrorAction Stop, ending the command', async () => {
      expect(await engine.call("throw 'boom'; 'never'", 'status')).toBe(
        'Exception: boom\n[exit code: 1]',
      );
      expect(await engine.call("Get-Item /nope -ErrorAction Stop; 'never'", 'status')).toBe(
        `${NOT_FOUND}\n[exit code: 1]`,
      );
    });

    it('prints a non-terminating error and exits 0 unless a native code says otherwise', async () => {
      expect(await engine.call("Get-Item /nope; 'after'", 'status')).toBe(`${NOT_FOUND}\nafter`);
      expect(await engine.call("Get-Item /nope; bash -c 'exit 2'", 'status')).toBe(
        `${NOT_FOUND}\n[exit code: 2]`,
      );
    });

    it('shows Write-Error as a prompt shows it, never where the wrapper ran the command', async () => {
      // It came back as `Write-Error: <integration.ps1>:29`, a `Line |` box with the wrapper's
      // own line, then the message.
      expect(await engine.call("Write-Error 'boom'", 'status')).toBe('Write-Error: boom');
      expect(await engine.call("function f { Write-Error 'in-f' }; f", 'status')).toBe('f: in-f');
      expect(await engine.call("'first'\nWrite-Error 'second line'", 'status')).toBe(
        'first\nWrite-Error: second line',
      );
    });

    it('reports a syntax error like any failing command, and the shell goes on', async () => {
      const output = await engine.call("'unterminated", 'status');
      expect(output).toMatch(/^ParserError: /);
      expect(output).toMatch(/The string is missing the terminator: '\.\n\[exit code: 1\]$/);
      expect(await engine.call("'next'", 'status')).toBe('next');
    });

    it('honours $ErrorActionPreference = Stop set by an earlier call', async () => {
      await engine.call("$ErrorActionPreference = 'Stop'", 'eap');
      expect(await engine.call("Get-Item /nope; 'never'", 'eap')).toBe(
        `${NOT_FOUND}\n[exit code: 1]`,
      );
    });
  });

  describe('output as a terminal shows it', () => {
    it('renders plainly: no colour, no progress, concise errors', async () => {
      expect(await engine.call('$PSStyle.OutputRendering; $env:NO_COLOR; $ErrorView')).toBe(
        'PlainText\n1\nConciseView',
      );
      expect(await engine.call("Write-Host -ForegroundColor Red 'red'")).toBe('red');
      expect(
        await engine.call(
          "1..5 | ForEach-Object { Write-Progress -Activity busy -PercentComplete ($_ * 20) }; 'done'",
        ),
      ).toBe('done');
    });

    it('writes and reads UTF-8, from cmdlets and native programs alike', async () => {
      expect(
        await engine.call(
          '[Console]::OutputEncoding.WebName; [Console]::InputEncoding.WebName; $OutputEncoding.WebName',
        ),
      ).toBe('utf-8\nutf-8\nutf-8');
      expect(await engine.call("'日本語 🎉 αβ'")).toBe('日本語 🎉 αβ');
      expect(await engine.call('bash -c "printf \'é€\\n\'"')).toBe('é€');
    });

    it('keeps output that does not end its line', async () => {
      expect(await engine.call("Write-Host -NoNewline 'partial'")).toBe('partial');
    });

    it('clips long output with the pwsh notice and saves the whole of it', async () => {
      const output = await small.call('1..100 | ForEach-Object { "line $_" }');
      const lines = Array.from({ length: 100 }, (_, i) => `line ${i + 1}`).join('\n');
      const match = output.match(/\n\[full output saved to (\/[^\]]+)\]$/) as RegExpMatchArray;
      expect(output.slice(0, match.index)).toBe(`${lines.slice(0, 100)}${CLIP_NOTICE}`);
      // The file is the whole output as printed, its final newline included (a text file).
      expect(readFileSync(match[1] as string, 'utf8')).toBe(`${lines}\n`);
    });
  });

  it('names the pwsh it runs in $env:SHELL, whatever the server\u2019s SHELL is', async () => {
    expect(await small.call('$env:SHELL', 'shell-var')).toBe(PWSH);
  });

  describe('what persists', () => {
    it('keeps variables, functions, aliases, the location and the environment', async () => {
      await engine.call(
        "$count = 41; function Add-One($n) { $n + 1 }; Set-Alias -Name ao -Value Add-One; Set-Location /tmp; $env:KEPT = 'yes'",
        'eap',
      );
      expect(
        await engine.call(
          'ao $count; (Get-Location).Path; $env:KEPT; bash -c \'echo "$KEPT"\'',
          'eap',
        ),
      ).toBe('42\n/tmp\nyes\nyes');
    });

    it('records the commands, and never the wrapper, in Get-History', async () => {
      await engine.call("'first entry'", 'history');
      await engine.call("bash -c 'exit 1'", 'history');
      expect(await engine.call('Get-History | ForEach-Object CommandLine', 'history')).toBe(
        "'first entry'\nbash -c 'exit 1'",
      );
    });
  });
});
