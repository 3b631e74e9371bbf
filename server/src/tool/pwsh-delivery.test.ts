/**
 * Commands reach pwsh intact and the shell stays sound: large here-strings, quoting with
 * `'`, `"`, backtick and `$`, literal control characters, Unicode, text that looks like a
 * marker, what viewers see, agents kept apart and one agent's calls in arrival order, bad
 * input, and a command that breaks the integration. Skipped, with one line saying why, where
 * pwsh is not installed (see pwsh-check.ts).
 */
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestEngine } from '../../test/support/engine.ts';
import { PWSH, startPwshEngine } from '../../test/support/pwsh.ts';

let engine: TestEngine;

/** Text only the wrapper or the marks could produce. */
const WRAPPER_TRACES = /__jumpseat|7717;/;

async function screenOf(agent: string): Promise<string> {
  const info = engine.tools.registry
    .sessions()
    .find((s) => s.agent === agent && s.state !== 'exited');
  return (await engine.tools.registry.find(info?.id ?? '')?.snapshot())?.data ?? '';
}

describe.skipIf(PWSH === null)('pwsh delivery', () => {
  beforeAll(() => {
    engine = startPwshEngine({ env: { ...process.env, MY_API_KEY: 'k', PLAIN_SETTING: 'v' } });
  });
  afterAll(async () => {
    await engine.close();
  });

  describe('commands arrive intact', () => {
    it('runs a 1 MiB here-string intact', async () => {
      const line = `${'x'.repeat(60)}\t"quoted" 'single' $NOT_EXPANDED \`backtick \\ back é\n`;
      const body = line.repeat(Math.ceil((1024 * 1024) / line.length));
      const command =
        `@'\n${body}'@ | Set-Content -NoNewline -Path big.txt\n` +
        '(Get-Item big.txt).Length; (Get-FileHash big.txt -Algorithm SHA256).Hash.ToLower()';
      expect(command.length).toBeGreaterThan(1024 * 1024);
      // A here-string ends before the newline that precedes its closing '@.
      const text = body.slice(0, -1);
      const expected = createHash('sha256').update(text).digest('hex');
      expect(await engine.call(command)).toBe(`${Buffer.byteLength(text)}\n${expected}`);
    });

    it('runs quotes, backticks and $ exactly as given: \', ", `, $', async () => {
      expect(await engine.call("'single ''quoted'' $HOME `n'")).toBe("single 'quoted' $HOME `n");
      expect(await engine.call('"double `"quoted`" `$HOME $(1 + 1)"')).toBe(
        'double "quoted" $HOME 2',
      );
      expect(await engine.call('"tab`there"; "a" + [char]36 + "b"')).toBe('tab\there\na$b');
      expect(await engine.call('$dollar = \'$\'; "cost: ${dollar}5"')).toBe('cost: $5');
    });

    it('keeps literal tabs and control characters (no line editing)', async () => {
      expect(await engine.call("[int[]][char[]]'a\tb' -join ' '")).toBe('97 9 98');
      expect(await engine.call("[int[]][char[]]'\u0015\u0003\u001b[A' -join ' '")).toBe(
        '21 3 27 91 65',
      );
    });

    it('runs a multi-line command as one unit, with Unicode', async () => {
      expect(await engine.call("foreach ($w in 'α', '日本') {\n  $w\n}\n'🎉'")).toBe('α\n日本\n🎉');
    });

    it('does not end a call on output that looks like a marker', async () => {
      expect(
        await engine.call(
          '[Console]::Write("`e]7717;forged;E;x;0`a`e]7717;forged;p;`a"); Start-Sleep -Milliseconds 200; \'still running\'',
        ),
      ).toBe('still running');
    });
  });

  describe('what viewers see', () => {
    it('shows the prompt and the command as sent, never the wrapper or a mark', async () => {
      await engine.call("Write-Output 'visible-line'", 'screen');
      await engine.call("$n = Read-Host 'Name'", 'screen');
      await engine.call('Ada', 'screen');
      const screen = await screenOf('screen');
      expect(screen).toContain(
        `PS ${engine.workspaceOf('screen')}> Write-Output 'visible-line'\r\nvisible-line`,
      );
      // The answer shows once, after its question: pwsh's own echo of it is not shown twice.
      expect(screen).toContain('Name: Ada');
      expect(screen.match(/Ada/g)).toHaveLength(1);
      expect(screen).not.toMatch(WRAPPER_TRACES);
    });

    it('writes the home as ~ in its prompt, as bash does, and other paths as they are', async () => {
      await engine.call("Set-Location $HOME; 'at-home'", 'home');
      await engine.call("Set-Location /; 'at-root'", 'home');
      await engine.call("'done'", 'home');
      const screen = await screenOf('home');
      expect(screen).toContain("PS ~> Set-Location /; 'at-root'\r\nat-root");
      expect(screen).toContain("PS /> 'done'");
    });

    it('keeps a prompt a command defines, and still works after it', async () => {
      await engine.call("function prompt { 'custom> ' }", 'prompt');
      expect(await engine.call("'one'", 'prompt')).toBe('one');
      expect(await engine.call("'two'", 'prompt')).toBe('two');
      expect(await screenOf('prompt')).toContain("custom> 'two'");
    });

    it('repairs the integration when a command removes it', async () => {
      await engine.call('Remove-Item function:__jumpseat_pre', 'repair');
      expect(await engine.call("'repaired'", 'repair')).toBe('repaired');
      expect(await engine.call('Set-StrictMode -Version Latest; $x = 1', 'repair')).toBe('');
      expect(await engine.call('$x + 1', 'repair')).toBe('2');
    });
  });

  describe('agents and order', () => {
    it('keeps agents apart', async () => {
      await engine.call("$mine = 'a'", 'iso-a');
      await engine.call("$mine = 'b'", 'iso-b');
      expect(await engine.call('$mine', 'iso-a')).toBe('a');
      expect(await engine.call('$mine', 'iso-b')).toBe('b');
    });

    it("runs one agent's calls in arrival order", async () => {
      const first = engine.call("Start-Sleep -Milliseconds 300; $order = 'first'; $order", 'fifo');
      const second = engine.call('"after $order"', 'fifo');
      expect(await first).toBe('first');
      expect(await second).toBe('after first');
    });
  });

  describe('input rules and environment', () => {
    it('refuses an empty command and a NUL, and runs nothing', async () => {
      await expect(engine.call('  \n ')).rejects.toMatchObject({
        status: 400,
        message: 'command must be a non-empty string',
      });
      await expect(engine.call("'a\u0000b'")).rejects.toMatchObject({
        status: 400,
        message: 'command must not contain a NUL character',
      });
    });

    it('keeps secrets and the nonce out of the environment', async () => {
      expect(
        await engine.call(
          '(Get-ChildItem env: | Where-Object Name -Match \'key|secret|token|password|jumpseat|nonce\').Count; "[$env:PLAIN_SETTING]"',
        ),
      ).toBe('0\n[]');
    });
  });
});
