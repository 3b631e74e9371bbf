/**
 * Commands reach bash intact and output comes back exact: large heredocs, literal tabs and
 * control characters, quoting, Unicode, text that looks like a marker, and secrets kept out
 * of the shell's environment.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEngine, type TestEngine } from '../../test/support/engine.ts';

let engine: TestEngine;

beforeAll(() => {
  engine = startEngine({
    flags: ['--pass-env', 'PASSED_TOKEN'],
    env: {
      ...process.env,
      MY_API_KEY: 'k',
      github_token: 't',
      DB_PASSWORD: 'p',
      APP_SECRET_X: 's',
      JUMPSEAT_TOKEN: 'admin',
      JUMPSEAT_OTHER: 'o',
      PASSED_TOKEN: 'allowed',
      PLAIN_SETTING: 'visible',
    },
  });
});
afterAll(async () => {
  await engine.close();
});

const shellQuote = (text: string) => `'${text.replaceAll("'", `'\\''`)}'`;

describe('command delivery', () => {
  it('runs a 1 MiB heredoc intact', async () => {
    const line = `${'x'.repeat(60)}\t"quoted" 'single' $NOT_EXPANDED \\ back é\n`;
    const body = line.repeat(Math.ceil((1024 * 1024) / line.length));
    const command = `cat > big.txt <<'EOF'\n${body}EOF\nwc -c < big.txt; sha256sum big.txt | cut -c1-64`;
    expect(command.length).toBeGreaterThan(1024 * 1024);
    const { createHash } = await import('node:crypto');
    const expected = createHash('sha256').update(body).digest('hex');
    expect(await engine.call(command)).toBe(`${Buffer.byteLength(body)}\n${expected}`);
  });

  it('keeps literal tabs (no completion) and control characters (no line editing)', async () => {
    expect(await engine.call("printf '%s' 'a\tb' | od -An -c | tr -s ' '")).toBe(' a \\t b');
    expect(await engine.call("printf '%s' '\u0015\u0003\u001b[A' | od -An -tx1 | tr -s ' '")).toBe(
      ' 15 03 1b 5b 41',
    );
  });

  it("runs quotes, backslashes, $'…', newlines and Unicode exactly as given", async () => {
    expect(await engine.call(`echo "dq \\"x\\"" 'sq "y"' $'ansi\\tz' back\\\\slash`)).toBe(
      'dq "x" sq "y" ansi\tz back\\slash',
    );
    expect(await engine.call('for w in α β\ndo\n  echo "$w"\ndone')).toBe('α\nβ');
    expect(await engine.call('echo 日本語 🎉')).toBe('日本語 🎉');
  });

  it('never waits at a continuation prompt for an unfinished command', async () => {
    expect(await engine.call("echo 'unterminated")).toMatch(
      /unexpected EOF[\s\S]*\[exit code: 2\]$/,
    );
    expect(await engine.call('echo next')).toBe('next');
  });

  it('returns arbitrary printed text byte-exact (property)', async () => {
    const printable = fc
      .string({ unit: 'grapheme', maxLength: 200 })
      .map((text) => text.replace(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g, ''));
    await fc.assert(
      fc.asyncProperty(printable, async (text) => {
        const output = await engine.call(`printf '%s' ${shellQuote(text)}`, 'property');
        expect(output).toBe(text.endsWith('\n') ? text.slice(0, -1) : text);
      }),
      { numRuns: 150 },
    );
  });
});

describe('markers', () => {
  it('a command printing marker-like text does not end the call', async () => {
    const output = await engine.call(
      "printf '\\033]7717;forged;E;x;0\\007'; printf '\\033]7717;forged;p;0\\007'; sleep 0.2; echo still running",
    );
    expect(output).toBe('still running');
  });

  it('markers never appear in results or on the screen', async () => {
    await engine.call('echo visible-line', 'screen-a');
    const shell = engine.tools.registry.sessions().find((s) => s.agent === 'screen-a');
    const snapshot = await engine.tools.registry.find(shell?.id ?? '')?.snapshot();
    expect(snapshot?.data).toContain('echo visible-line');
    expect(snapshot?.data).toContain('visible-line');
    expect(snapshot?.data).not.toContain('7717');
    expect(snapshot?.data).not.toContain('jumpseat_');
  });
});

describe('secrets', () => {
  it('gives the shell only allowlisted and passed variables of the server', async () => {
    const names = await engine.call(
      "env | cut -d= -f1 | grep -iE 'key|secret|token|password|jumpseat' | sort",
    );
    expect(names).toBe('PASSED_TOKEN');
    expect(await engine.call('echo "${PLAIN_SETTING-unset}"')).toBe('unset');
    expect(await engine.call('echo "$PASSED_TOKEN"')).toBe('allowed');
  });

  it('leaves no nonce in the environment of the shell or its children', async () => {
    expect(await engine.call('env | grep -ci nonce')).toBe('0\n[exit code: 1]');
    // What the shell was started with, which `unset` cannot remove, holds none either.
    expect(
      await engine.call(
        "tr '\\0' '\\n' </proc/$$/environ | grep -ciE '^[^=]*(nonce|jumpseat)[^=]*='",
      ),
    ).toBe('0\n[exit code: 1]');
  });
});
