/**
 * Shell options keep their meaning and the shell lives (issue 22.1): `set -e`, `set -u`,
 * `pipefail` and ERR traps stop a call where a bash script would stop, with a script's output
 * and status, set in the same call or in an earlier one; the shell keeps all its state.
 * The oracle is the same text run by `bash -c` as a script.
 */
import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { bashSingleQuote } from '../src/pty/bash-quote.ts';
import { sharedEngine } from './support/engine.ts';

/** Closing every shell of the file takes long with both cores busy (not what is tested). */
const CLOSE_LIMIT_MS = 120_000;

const engine = sharedEngine({ flags: ['--timeout-ms', '15000'] }, CLOSE_LIMIT_MS);
let agents = 0;

/** What a script running `setup` then `command` prints, as a result text (status appended). */
function scriptAnswer(setup: string, command: string): string {
  const run = spawnSync(
    'bash',
    ['--norc', '--noprofile', '-c', `exec 2>&1\n${setup}\n${command}`],
    {
      cwd: '/tmp',
      encoding: 'utf8',
    },
  );
  // A script names the line; an interactive shell does not.
  const output = run.stdout.replace(/^bash: line \d+: /gm, 'bash: ').replace(/\n$/, '');
  const status = run.status === 0 ? '' : `[exit code: ${run.status}]`;
  return [output, status].filter((part) => part !== '').join('\n');
}

async function freshShell(): Promise<string> {
  const agent = `errexit-${++agents}`;
  expect(await engine.call('KEPT=yes; cd /tmp', agent)).toBe('');
  return agent;
}

/** The state a failure must not take: variables, directory, functions, errexit itself. */
async function expectStateKept(agent: string, flags: string): Promise<void> {
  expect(
    await engine.call('echo "$KEPT $PWD ${-//[^eu]/}"; set -o | grep -c "pipefail *on"', agent),
  ).toBe(`yes /tmp ${flags}\n${flags.includes('p') ? 1 : '0\n[exit code: 1]'}`);
}

/** [setup call (may be empty), command, exact answer]. */
const cases: [string, string, string][] = [
  [
    'set -e',
    'cd /nonexistent-dir; echo DANGER',
    'bash: cd: /nonexistent-dir: No such file or directory\n[exit code: 1]',
  ],
  [
    '',
    'set -e; cd /nonexistent-dir; echo DANGER',
    'bash: cd: /nonexistent-dir: No such file or directory\n[exit code: 1]',
  ],
  ['', 'set -e; false || echo handled', 'handled'],
  ['set -e', 'false || echo handled', 'handled'],
  ['', 'set -e; if false; then :; fi; echo ok', 'ok'],
  ['set -e', 'while false; do :; done; ! false; false && echo no; echo ok', 'ok'],
  ['', 'set -euo pipefail; false | true; echo x', '[exit code: 1]'],
  ['set -euo pipefail', 'false | true; echo x', '[exit code: 1]'],
  ['', 'set -e; f() { false; echo in-f; }; f; echo after', '[exit code: 1]'],
  ['set -e; f() { false; echo in-f; }', 'f; echo after', '[exit code: 1]'],
  ['set -e; f() { false; echo in-f; }', 'f || echo caught; echo after', 'in-f\nafter'],
  ['', 'set -e; (false; echo sub); echo after', '[exit code: 1]'],
  ['set -e', '(exit 3); echo after', '[exit code: 3]'],
  ['set -e', 'x=$(false; echo y); echo "$x"', 'y'],
  ['set -e', 'g() { return 4; }; h() { g; echo no; }; h; echo no', '[exit code: 4]'],
  ['', 'set -u; echo $nope; echo after', 'bash: nope: unbound variable\n[exit code: 1]'],
  ['set -u', 'echo "${nope}"; echo after', 'bash: nope: unbound variable\n[exit code: 1]'],
  ['', 'false; echo after', 'after'],
  ['set -e; trap "echo T" ERR', 'false; echo after', 'T\n[exit code: 1]'],
  ['set -e; trap "echo T" ERR; f() { false; echo in-f; }', 'f; echo after', '[exit code: 1]'],
  ['set -eE; trap "echo T" ERR; f() { false; echo in-f; }', 'f; echo after', 'T\n[exit code: 1]'],
  ['set -eE; trap "echo T" ERR', '(false; echo sub); echo after', 'T\nT\n[exit code: 1]'],
  ['set -e; trap "echo T" ERR', '(false; echo sub); echo after', 'T\n[exit code: 1]'],
  ['trap \'echo "st=$?"\' ERR', 'false; (exit 3); echo after', 'st=1\nst=3\nafter'],
  ['set -e; trap \'echo "st=$?"\' ERR', '(exit 3); echo after', 'st=3\n[exit code: 3]'],
  ['FUNCNEST=2; set -e', 'f() { false; echo in; }; g() { f; }; g; echo after', '[exit code: 1]'],
  // An ERR trap set in the same call as the failure (the common preamble) keeps errexit.
  [
    '',
    'set -e; trap "echo T" ERR; cd /nonexistent-dir; echo DANGER',
    'bash: cd: /nonexistent-dir: No such file or directory\nT\n[exit code: 1]',
  ],
  ['', 'set -euo pipefail; trap "echo T" ERR; false | true; echo x', 'T\n[exit code: 1]'],
  ['set -e; f() { false; echo in-f; }', 'trap "echo T" ERR; f; echo after', '[exit code: 1]'],
  ['set -e; trap "echo A" ERR', 'trap "echo B" ERR; false; echo after', 'B\n[exit code: 1]'],
  // errtrace switched on by the call's own preamble: the trap fires in a function too.
  [
    '',
    'set -Eeuo pipefail; trap "echo T" ERR; f() { false; echo in-f; }; f; echo after',
    'T\n[exit code: 1]',
  ],
  ['trap "echo T" ERR; f() { false; echo in-f; }', 'set -E; f; echo after', 'T\nin-f\nafter'],
  // `trap` disabled by the command: the call line's own steps that use it must not end the
  // shell under set -e, nor take the ERR trap for removed.
  ['set -e; trap "echo T" ERR', 'enable -n trap; false; echo no', 'T\n[exit code: 1]'],
  // POSIX mode shows an unset trap as `trap -- - ERR`: no trap, not an action named `-`
  // (found by the fuzz, seed 58001, case 2424 after case 2407).
  ['set -o posix; trap "echo T" ERR', 'trap - ERR; set +o posix; false; echo after', 'after'],
  ['set -o posix; trap "echo T" ERR', 'trap - ERR; false; echo after', 'after'],
];

describe('a call stops where a bash script stops, with the script output and status', () => {
  for (const [setup, command, answer] of cases) {
    it(`${JSON.stringify(setup)} then ${JSON.stringify(command)} → ${JSON.stringify(answer)}`, async () => {
      // The pinned answer is what a script answers: the oracle first. A script ends with 127
      // on an unbound variable; the contract gives a terminal's `$?` (1) instead.
      const script = scriptAnswer(setup, command);
      expect(/set -\w*u/.test(setup + command) ? script.replace(/127]$/, '1]') : script).toBe(
        answer,
      );
      const agent = await freshShell();
      if (setup !== '') await engine.call(setup, agent);
      expect(await engine.call(command, agent)).toBe(answer);
      const both = `${setup}\n${command}`;
      const flags = `${/-\w*e/.test(both) ? 'e' : ''}${/-\w*u/.test(both) ? 'u' : ''}`;
      expect(await engine.call('echo "$KEPT $PWD ${-//[^eu]/}"', agent)).toBe(`yes /tmp ${flags}`);
    });
  }
});

describe('the shell keeps its state after a failure', () => {
  it('keeps variables, directory, functions, declared globals, errexit and pipefail', async () => {
    const agent = await freshShell();
    expect(
      await engine.call('set -euo pipefail; f() { echo fn; }; declare G=1; false; echo no', agent),
    ).toBe('[exit code: 1]');
    expect(await engine.call('f; echo "$G"', agent)).toBe('fn\n1');
    await expectStateKept(agent, 'eu');
    expect(await engine.call('set +e; false; echo on', agent)).toBe('on');
  });

  it('shows the user its own errtrace and ERR trap after the call', async () => {
    const agent = await freshShell();
    expect(await engine.call('trap "echo T" ERR; set -e', agent)).toBe('');
    expect(await engine.call('false', agent)).toBe('T\n[exit code: 1]');
    // Between calls errtrace is the user's (off) and the trap theirs, as `set -o` shows next time.
    expect(await engine.call('set +e; trap - ERR', agent)).toBe('');
    expect(await engine.call('false; echo after', agent)).toBe('after');
  });

  // The call line writes what `trap -p` shows over one file in place, ended by a NUL: a
  // longer text an earlier call left there must not reach the next call's traps.
  it('takes a trap replaced by a shorter one as it is now, for ERR and DEBUG', async () => {
    const long = `: ${'long-trap-text-'.repeat(40)}`;
    const errAgent = await freshShell();
    expect(await engine.call(`trap '${long}' ERR`, errAgent)).toBe('');
    expect(await engine.call('trap "echo E" ERR', errAgent)).toBe('');
    expect(await engine.call('false; echo after', errAgent)).toBe('E\nafter');
    const debugAgent = await freshShell();
    expect(await engine.call(`trap '${long}' DEBUG`, debugAgent)).toBe('');
    await engine.call('trap "echo D" DEBUG', debugAgent);
    expect(await engine.call('echo ok', debugAgent)).toBe('D\nok');
  });

  // post splits the one text `trap -p DEBUG ERR RETURN` printed into the three traps by
  // bash's quoting: an action holding quotes, newlines or what looks like the end of an
  // entry (`' ERR` then a new `trap -- '`) is still one trap, for each of the three.
  it('keeps traps whose text looks like several, and each fires as set', async () => {
    const agent = await freshShell();
    // In a directory of its own, which must stay empty: the split's variables are its own
    // (one named like the integration's file of the call's taken mark once made post write
    // that mark into a file named after a piece of trap text, here).
    expect(await engine.call('cd "$(mktemp -d)"', agent)).toBe('');
    const debug = `case $BASH_COMMAND in *marker*) echo "D' ERR\ntrap -- 'x";; esac`;
    const err = `echo "E' RETURN"\n: 'trap -- '\\'' DEBUG'`;
    const ret = `echo "R\n' DEBUG"`;
    const traps = [
      `trap ${bashSingleQuote(debug)} DEBUG`,
      `trap ${bashSingleQuote(err)} ERR`,
      `set -T; trap ${bashSingleQuote(ret)} RETURN`,
    ];
    // Not asserted: in the call that sets them, a DEBUG and a RETURN trap still fire for
    // the integration's own steps (they are moved behind the dispatchers at its end).
    await engine.call(traps.join('; '), agent);
    expect(await engine.call('echo marker', agent)).toBe("D' ERR\ntrap -- 'x\nmarker");
    expect(await engine.call('false', agent)).toBe("E' RETURN\n[exit code: 1]");
    expect(await engine.call('f() { :; }; f', agent)).toBe("R\n' DEBUG");
    // Unchanged by the calls between.
    expect(await engine.call('echo marker', agent)).toBe("D' ERR\ntrap -- 'x\nmarker");
    expect(await engine.call('trap - DEBUG ERR RETURN; false; echo none', agent)).toBe('none');
    expect(await engine.call('ls -A | wc -l', agent)).toBe('0');
  });

  // The split's work grows with the text only: cutting the text at each quote by copying
  // what is left took a minute for this trap (past the engine's 15 s deadline here).
  it('takes an ERR trap of 40,000 quotes in its stride', async () => {
    const agent = await freshShell();
    const set = `q=$(printf "x'%.0s" {1..20000}); trap ": \${q@Q}" ERR; unset q`;
    expect(await engine.call(set, agent)).toBe('');
    expect(await engine.call('false', agent)).toBe('[exit code: 1]');
    expect(await engine.call('trap - ERR; echo ok', agent)).toBe('ok');
  });
});
