/**
 * Whatever a command does to the shell, the next call still works and no wrapper or marker
 * text reaches a result, the shell's history or the screen. Also: agents are isolated and
 * concurrent, and one agent's calls run strictly in arrival order.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEngine, type TestEngine } from '../../test/support/engine.ts';

let engine: TestEngine;

beforeAll(() => {
  engine = startEngine({ flags: ['--timeout-ms', '20000'] });
});
afterAll(async () => {
  await engine.close();
});

async function screenOf(agent: string): Promise<string> {
  const info = engine.tools.registry
    .sessions()
    .find((s) => s.agent === agent && s.state !== 'exited');
  const shell = engine.tools.registry.find(info?.id ?? '');
  return (await shell?.snapshot())?.data ?? '';
}

/** Text only the wrapper or the marks could produce (the workspace path itself says jumpseat). */
const WRAPPER_TRACES = /__jumpseat|__js[0-9a-f]+_|7717;|PIPESTATUS|builtin eval|builtin :/;

describe('sturdiness', () => {
  it('survives prompt variables and PROMPT_COMMAND', async () => {
    await engine.call(
      "PS1='custom> '; PS2=''; PS4='TRACE '; PROMPT_COMMAND='echo from-pc'",
      'sturdy-a',
    );
    expect(await engine.call('echo ok', 'sturdy-a')).toBe('ok');
    expect(await engine.call('echo again', 'sturdy-a')).toBe('again');
    expect(await screenOf('sturdy-a')).toContain('custom> ');
  });

  it('traces only the user command under set -x', async () => {
    await engine.call('set -x', 'sturdy-b');
    const traced = await engine.call('echo traced', 'sturdy-b');
    expect(traced).toMatch(/^\++ echo traced\ntraced$/);
    expect(traced).not.toMatch(WRAPPER_TRACES);
    await engine.call('set +x', 'sturdy-b');
    expect(await engine.call('echo plain', 'sturdy-b')).toBe('plain');
    expect(await screenOf('sturdy-b')).not.toMatch(WRAPPER_TRACES);
  });

  it('works under set -u, with an ERR trap, and after stty echo', async () => {
    await engine.call("set -u; trap 'echo ERR-trapped' ERR", 'sturdy-c');
    expect(await engine.call('false', 'sturdy-c')).toBe('ERR-trapped\n[exit code: 1]');
    expect(await engine.call('echo "${UNSET_VAR}"', 'sturdy-c')).toMatch(
      /UNSET_VAR: unbound variable/,
    );
    await engine.call('stty echo', 'sturdy-c');
    expect(await engine.call('echo after-echo', 'sturdy-c')).toBe('after-echo');
    expect(await engine.call('echo twice', 'sturdy-c')).toBe('twice');
    expect(await screenOf('sturdy-c')).not.toMatch(WRAPPER_TRACES);
  });

  it('keeps the wrapper out of history, even when HISTCONTROL is cleared', async () => {
    await engine.call('echo first-entry', 'sturdy-d');
    await engine.call('HISTCONTROL=', 'sturdy-d');
    await engine.call('echo second-entry', 'sturdy-d');
    const history = await engine.call('history', 'sturdy-d');
    expect(history).toMatch(
      /echo first-entry[\s\S]*HISTCONTROL=[\s\S]*echo second-entry[\s\S]*history$/,
    );
    expect(history).not.toMatch(WRAPPER_TRACES);
    expect(await engine.call('history -c; echo cleared', 'sturdy-d')).toBe('cleared');
    expect(await engine.call('echo works', 'sturdy-d')).toBe('works');
  });

  it('keeps variables declared by a command (declare, arrays, functions, aliases)', async () => {
    await engine.call(
      'declare -A map=([k]=v); arr=(1 2 3); greet() { echo "hi $1"; }; alias ll="echo aliased"',
      'sturdy-e',
    );
    expect(await engine.call('echo "${map[k]} ${arr[2]}"; greet you', 'sturdy-e')).toBe(
      'v 3\nhi you',
    );
  });

  it('is not hijacked by functions named like the commands the wrapper uses', async () => {
    await engine.call(
      'eval() { echo hijacked; }; printf() { echo hijacked; }; read() { echo hijacked; }',
      'sturdy-f',
    );
    expect(await engine.call('echo safe', 'sturdy-f')).toBe('safe');
  });

  it('repairs a shell whose integration a command removed, without running a call twice', async () => {
    await engine.call('unset -f $(compgen -A function __js)', 'sturdy-j');
    expect(await engine.call('echo ran >> runs.log; cat runs.log', 'sturdy-j')).toBe('ran');
    expect(await engine.call('echo again', 'sturdy-j')).toBe('again');
  });

  it('puts back the shell nonce a command unset, and runs each command once', async () => {
    // The integration's names are random per shell: a command must go looking for them. The
    // marks carried an empty nonce after this, and the shell was reset at the next call.
    expect(
      await engine.call(
        'for v in $(compgen -v __js); do [[ $v == *_n ]] && unset "$v"; done; cd /tmp; echo unset',
        'sturdy-k',
      ),
    ).toBe('unset');
    expect(await engine.call('echo kept >> lost.log; pwd', 'sturdy-k')).toBe('/tmp');
    expect(await engine.call('cat lost.log; echo same', 'sturdy-k')).toBe('kept\nsame');
  });

  it('does not take the prompt for input a program left unread as a failed call line', async () => {
    // A slow PROMPT_COMMAND makes sure the next call line is typed before bash reads the
    // Enter that `read -n 1` left behind (and answers it with a prompt of its own).
    await engine.call("PROMPT_COMMAND='sleep 0.3'", 'sturdy-l');
    expect(await engine.call('read -n 1 key; echo "key=$key"', 'sturdy-l')).toBe(
      '[waiting for input: bash]',
    );
    expect(await engine.call('x', 'sturdy-l')).toBe('key=x');
    expect(await engine.call('echo next >> next.log; cat next.log', 'sturdy-l')).toBe('next');
  });

  it('ends a call at its own end mark when the server reads it late, a prompt job holding the terminal', async () => {
    // The Enter after `read -n 1`'s key makes bash run PROMPT_COMMAND twice: its `sleep` holds
    // the terminal while the first prompt is drawn and again after it. The server is blocked
    // (as on a loaded machine) until the second sleep runs, so it reads the call's end mark
    // and the first prompt's marks with a job holding the terminal. Neither is believed at
    // once (a command can print them), nor taken for the command's: when the shell holds its
    // terminal again the end mark was the real end, and the prompt is not output.
    await engine.call("PROMPT_COMMAND='sleep 0.5'", 'sturdy-m');
    expect(await engine.call('read -n 1 key; echo "key=$key"', 'sturdy-m')).toBe(
      '[waiting for input: bash]',
    );
    const answered = engine.call('x', 'sturdy-m');
    // The key is typed as the shell turns `running`; the server is blocked from then on.
    const stateOf = () => engine.tools.registry.sessions().find((s) => s.agent === 'sturdy-m');
    while (stateOf()?.state !== 'running') await new Promise((resolve) => setImmediate(resolve));
    Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 900);
    expect(await answered).toBe('key=x');
    expect(await engine.call('echo next', 'sturdy-m')).toBe('next');
  });

  it('keeps working while a background job keeps printing', async () => {
    await engine.call(
      '(for i in $(seq 1 40); do echo tick; sleep 0.05; done) >/dev/tty &',
      'sturdy-g',
    );
    const output = await engine.call('echo done-marker', 'sturdy-g');
    expect(output).toContain('done-marker');
    expect(output).not.toMatch(WRAPPER_TRACES);
    expect(await engine.call('true', 'sturdy-g')).not.toMatch(WRAPPER_TRACES);
  });

  it("keeps marks when a command redirects the shell's own output", async () => {
    await engine.call('exec 3>&1 >/dev/null', 'sturdy-h');
    expect(await engine.call('echo hidden; echo shown >&3', 'sturdy-h')).toBe('shown');
  });

  it('shows humans the command after the prompt, and its output', async () => {
    await engine.call('echo shown-to-humans', 'sturdy-i');
    const screen = await screenOf('sturdy-i');
    expect(screen).toMatch(/[#$] echo shown-to-humans\r?\n(\x1b\[[0-9;]*m)*shown-to-humans/);
  });
});

describe('isolation, concurrency and order', () => {
  it('gives each agent its own shell', async () => {
    await engine.call('cd /tmp; export WHO=alpha', 'iso-a');
    expect(await engine.call('pwd; echo "[${WHO-}]"', 'iso-b')).toBe(
      `${engine.workspaceOf('iso-b')}\n[]`,
    );
    expect(await engine.call('pwd; echo "[${WHO-}]"', 'iso-a')).toBe('/tmp\n[alpha]');
  });

  it('runs different agents concurrently (one answers while the other still runs)', async () => {
    const finished: string[] = [];
    const slow = engine.call('sleep 1; echo slow', 'conc-a').then((text) => finished.push(text));
    await engine.call('echo quick', 'conc-b').then((text) => finished.push(text));
    await slow;
    expect(finished).toEqual(['quick', 'slow']);
  });

  it("runs one agent's calls strictly in arrival order", async () => {
    await engine.call('rm -f order.log', 'fifo');
    const calls = Array.from({ length: 8 }, (_, i) =>
      engine.call(`sleep 0.0${8 - i}; echo ${i} >> order.log; echo ${i}`, 'fifo'),
    );
    expect(await Promise.all(calls)).toEqual(Array.from({ length: 8 }, (_, i) => String(i)));
    expect(await engine.call('cat order.log', 'fifo')).toBe('0\n1\n2\n3\n4\n5\n6\n7');
  });
});
