/**
 * Every hostile change ENGINE-NOTES.md lists survives (issue 22.4): the call line runs in the
 * user's shell, so anything it names can be disabled or aliased. After the hostile call the
 * next call answers `ok` (or the reset line, and then the call after it `ok`), and no result
 * ever shows wrapper text. Through the HTTP tool API, over real bash and real PowerShell 7.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEngine, type TestEngine } from './support/engine.ts';
import { PWSH, startPwshEngine } from './support/pwsh.ts';

/** Text only the wrapper or the marks could produce. */
const BASH_WRAPPER = /__js[0-9a-f]+_|7717;|PIPESTATUS|builtin eval|[0-9A-F]{32}/;
const PWSH_WRAPPER =
  /__jumpseat|\$j\.|function global:|integration\.ps1|Set-PSDebug -Off|7717;|[0-9A-F]{32}/;

const resetLine = (dialect: string) =>
  `The persistent ${dialect} shell was reset; the next ${dialect} call starts from the workspace with a fresh current directory and environment.`;

/**
 * The call after `hostile` answers `ok` as `answer`; a shell that had to be reset says so with
 * the reset line, and the call after that answers `ok`.
 */
async function expectSurvives(
  engine: TestEngine,
  agent: string,
  dialect: 'bash' | 'pwsh',
  hostile: string,
  okCommand: string,
  wrapper: RegExp,
): Promise<void> {
  const first = await engine.call(hostile, agent);
  expect(first).not.toMatch(wrapper);
  const next = await engine.call(okCommand, agent);
  expect(next).not.toMatch(wrapper);
  if (next === 'ok') return;
  expect(next.endsWith(`\n${resetLine(dialect)}`) || next === resetLine(dialect)).toBe(true);
  expect(await engine.call(okCommand, agent)).toBe('ok');
}

/** One engine for a describe block: started before its tests, closed after them. */
function engineFor(start: () => TestEngine): () => TestEngine {
  let engine: TestEngine | undefined;
  beforeAll(() => {
    engine = start();
  });
  afterAll(async () => {
    await engine?.close();
  });
  return () => {
    if (!engine) throw new Error('the engine starts before the tests');
    return engine;
  };
}

describe('bash survives builtins disabled and aliases named like what the engine types', () => {
  const engine = engineFor(() => startEngine({ flags: ['--timeout-ms', '15000'] }));
  let agents = 0;

  const rows = [
    'enable -n eval',
    'enable -n builtin',
    'enable -n enable',
    'enable -n printf',
    'enable -n read',
    'enable -n set',
    'enable -n trap',
    'enable -n source',
    'enable -n .',
    'enable -n eval builtin enable printf read set trap source . return unset history',
    // enable goes last: nothing can enable eval again, so the shell is reset.
    'enable -n eval enable',
    "alias '{'='echo brace'",
    "alias if='echo x'",
    "alias '!'='echo bang'",
    "alias builtin='echo b'",
    "shopt -s expand_aliases; alias '{'='echo brace' if='echo x' '!'='echo bang' builtin='echo b'",
    "shopt -s expand_aliases; alias '\\'='echo bs' .='echo dot' source='echo src' '(('='echo pp'",
  ];
  for (const row of rows) {
    it(`answers the next call after ${JSON.stringify(row)}`, async () => {
      const agent = `hostile-${++agents}`;
      await expectSurvives(engine(), agent, 'bash', row, 'echo ok', BASH_WRAPPER);
    });
  }
});

describe.skipIf(PWSH === null)('pwsh survives hijacks of its integration', () => {
  const engine = engineFor(() => startPwshEngine({ flags: ['--timeout-ms', '20000'] }));
  let agents = 0;

  const rows = [
    'function global:__jumpseat_mark { }',
    'function global:__jumpseat_pre { }',
    'Set-PSBreakpoint -Command __jumpseat_post | Out-Null',
    'Set-PSBreakpoint -Command __jumpseat_pre, __jumpseat_state, __jumpseat_mark, prompt | Out-Null',
    'Set-PSDebug -Trace 1',
    'Set-PSDebug -Trace 2',
    // A terminating error: post never runs, and tracing is still on when the prompt comes.
    'Set-PSDebug -Trace 1; throw "boom"',
    'Set-PSBreakpoint -Variable __jumpseat, __jumpseat_sb -Mode ReadWrite | Out-Null',
    // A line breakpoint inside the integration's own file, found through its function.
    'Set-PSBreakpoint -Script (Get-Item function:__jumpseat_post).ScriptBlock.File -Line 60 | Out-Null',
    // Every later call ended `PS>` and waiting: the prompt could not find the state.
    'Remove-Item function:__jumpseat_state',
    'Remove-Item function:* -ErrorAction SilentlyContinue',
    'function global:__jumpseat_state { }',
  ];
  for (const row of rows) {
    it(`answers the next call after ${JSON.stringify(row)}`, async () => {
      const agent = `pwsh-hostile-${++agents}`;
      await expectSurvives(engine(), agent, 'pwsh', row, "'ok'", PWSH_WRAPPER);
    });
  }
});

/**
 * A command that unset the integration's variables (`unset ${!__js…@}`, or every variable it
 * can) left each later call ending `[waiting for input: bash]`, typed to the shell as input.
 * Its functions, left by an unset of variables, put them back: the call ends as it should, and
 * the shell keeps its state.
 */
describe("bash puts back the integration's variables a command unset", () => {
  const engine = engineFor(() => startEngine({ flags: ['--timeout-ms', '15000'] }));
  let agents = 0;

  const rows: { hostile: string; answer?: string; after: [string, string][] }[] = [
    { hostile: 'unset ${!__js@}; echo x', answer: 'x', after: [['echo $y $PWD', 'kept /tmp']] },
    // Put back as they were, not as in a fresh shell (whose prompt the integration sets).
    {
      hostile: "PS1='my> '; unset ${!__js@}; echo x",
      answer: 'x',
      after: [["[[ $PS1 == *'my> '* ]] && echo ps1-kept", 'ps1-kept']],
    },
    { hostile: 'unset ${!__js@}; false', answer: '[exit code: 1]', after: [['echo ok', 'ok']] },
    {
      hostile: 'set -u; unset ${!__js@}; echo x',
      answer: 'x',
      after: [
        ['echo $nope', 'bash: nope: unbound variable\n[exit code: 1]'],
        ['echo $y', 'kept'],
      ],
    },
    {
      hostile: 'for v in $(compgen -v); do unset "$v" 2>/dev/null; done; echo done',
      answer: 'done',
      after: [
        ['echo ok', 'ok'],
        ['cd /; pwd', '/'],
      ],
    },
    {
      hostile: 'unset ${!__js@}; read v',
      answer: '[waiting for input: bash]',
      after: [
        ['hello', ''],
        ['echo got $v', 'got hello'],
      ],
    },
    {
      hostile: "trap 'echo T' DEBUG; unset ${!__js@}; echo x",
      answer: 'T\nT\nx',
      after: [['echo ok', 'T\nok']],
    },
    // The command's own trace shows the names it unset, as at a terminal; nothing after it.
    { hostile: 'set -x; unset ${!__js@}', after: [['echo ok', '+ echo ok\nok']] },
  ];
  for (const row of rows) {
    it(`answers ${JSON.stringify(row.hostile)} and the calls after it`, async () => {
      const agent = `unset-${++agents}`;
      expect(await engine().call('cd /tmp; y=kept', agent)).toBe('');
      const answer = await engine().call(row.hostile, agent);
      if (row.answer !== undefined) expect(answer).toBe(row.answer);
      for (const [command, expected] of row.after) {
        expect(await engine().call(command, agent)).toBe(expected);
      }
    });
  }

  it("answers the calls after an unset under set -u that was the shell's first call", async () => {
    // The first call has no trap capture from an earlier one: the missing capture was read
    // as the integration's traps removed, and the next call reset the shell.
    const agent = `unset-${++agents}`;
    expect(await engine().call('set -u; unset ${!__js@}; echo x', agent)).toBe('x');
    expect(await engine().call('echo ok', agent)).toBe('ok');
    expect(await engine().call('echo $nope', agent)).toBe(
      'bash: nope: unbound variable\n[exit code: 1]',
    );
  });
});

/**
 * A command that removed pwsh's state (`Remove-Variable __jumpseat*`, or every variable) was
 * answered `[exit code: 130]`, as a line cut short: post made the state afresh and knew no call
 * in flight. It now finds the call again, and the shell keeps its state.
 */
describe.skipIf(PWSH === null)(
  "pwsh finds its call again after a command removed the integration's state",
  () => {
    const engine = engineFor(() => startPwshEngine({ flags: ['--timeout-ms', '20000'] }));
    let agents = 0;

    const rows = [
      'Remove-Variable __jumpseat* -Scope Global -Force',
      'Remove-Variable * -Scope Global -Force -ErrorAction SilentlyContinue',
      'Get-Variable -Scope Global | Remove-Variable -Scope Global -Force -ErrorAction SilentlyContinue',
    ];
    for (const row of rows) {
      it(`answers ${JSON.stringify(row)} and the calls after it`, async () => {
        const agent = `pwsh-removed-${++agents}`;
        expect(await engine().call("Set-Location /tmp; $global:y = 'kept'", agent)).toBe('');
        expect(await engine().call(`${row}; 'removed'`, agent)).toBe('removed');
        expect(await engine().call('(Get-Location).Path', agent)).toBe('/tmp');
        // And a function of the integration removed after that, as before the state went.
        expect(await engine().call('Remove-Item function:__jumpseat_pre', agent)).toBe('');
        expect(await engine().call("'ok'", agent)).toBe('ok');
      });
    }
  },
);
