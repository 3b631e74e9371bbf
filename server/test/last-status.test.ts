/**
 * `$?` and `$_` mean what they mean at a terminal (issue 22.1, 22.4; bash-last-status.ts):
 * a call finds `$?` as the last call (or the last line a person typed) left it, whatever
 * options and traps are set, and `$_` never holds a word of the wrapper. Each row runs on a
 * fresh agent's shell: the calls before the last, then the last, whose result is exact.
 */
import { describe, expect, it, vi } from 'vitest';
import { liveShellOf, sharedEngine } from './support/engine.ts';
import { shellAtPrompt } from './support/host-processes.ts';
import { until } from './support/until.ts';

const engine = sharedEngine({ flags: ['--timeout-ms', '15000'] });
let agents = 0;

/** Calls before the last (their results not asserted), the last, and its exact result. */
type Row = [before: string[], last: string, result: string];

async function runRow([before, last, result]: Row): Promise<void> {
  const agent = `last-status-${++agents}`;
  for (const text of before) await engine.call(text, agent);
  expect(await engine.call(last, agent)).toBe(result);
}

describe('$? at the start of a call is the last call status, as at a terminal', () => {
  const rows: Row[] = [
    [['false'], 'echo $?', '1'],
    [['true'], 'echo $?', '0'],
    [["sh -c 'exit 7'"], 'echo "$? ${PIPESTATUS[*]}"', '7 7'],
    [['false', 'true'], 'echo $?', '0'],
    [['ls /nonexistent-dir'], 'echo $?', '2'],
    [['(exit 130)'], 'echo $?', '130'],
    [['false'], 'if [ $? -ne 0 ]; then echo failed; fi', 'failed'],
    // Giving the status back is never a failure that errexit or an ERR trap sees.
    [['set -e', 'false'], 'echo $?; echo still', '1\nstill'],
    [['set -e', '(exit 3)'], 'echo $?', '3'],
    [['set -e; trap "echo E" ERR', '(exit 3)'], 'echo $?', '3'],
    [['set -Eeuo pipefail; trap "echo E" ERR', 'ls /nonexistent-dir'], 'echo $?', '2'],
    [['trap "echo E" ERR', 'false'], 'echo $?', '1'],
    [['set -e', 'false'], 'false; echo no', '[exit code: 1]'],
    // The status a failing call gave stops nothing in the next call, and is its `$?`.
    [['set -e', '(exit 4)'], 'true; echo $?', '0'],
    [['set -u', 'echo $nope'], 'echo $?', '1'],
    // With xtrace the status comes after pre's `set -x`, and nothing of it is traced.
    // A RETURN trap does not fire for the step (found by the fuzz, seed 58001).
    [['set -eE; trap "echo R" RETURN', '(exit 3); echo after'], 'echo ok $?', 'ok 3'],
    [['set -T; trap "echo D" DEBUG', '(exit 4)'], 'echo $?', 'D\n4'],
    [['set -x', 'false'], 'echo $?', '+ echo 1\n1'],
    [['set -x', '(exit 5)'], 'echo $? ${PIPESTATUS[@]}', '+ echo 5 5\n5 5'],
    [['set -v', 'false'], 'echo $?', 'echo $?\n1'],
    [["trap 'echo D' DEBUG", 'false'], 'echo $?', 'D\n1'],
    [['set -x; trap "echo E" ERR', 'false'], 'echo $?', '+ echo 1\n1'],
    // A trace sent to stdout: the step giving the status back traced there too (`+ builtin printf`).
    [['BASH_XTRACEFD=1; set -x'], 'echo ok', '+ echo ok\nok'],
    [['BASH_XTRACEFD=1; set -x', 'false'], 'echo $?', '+ echo 1\n1'],
  ];
  for (const row of rows) {
    it(`${row[0].join(' ⏎ ')} ⏎ ${row[1]}`, () => runRow(row));
  }
});

describe('$_ never holds a word of the wrapper', () => {
  const rows: Row[] = [
    [[], 'true x y; echo "[$_]"', '[y]'],
    [[], 'false x y; echo "[$_]"', '[]'],
    [[], 'echo a b; echo "[$_]"', 'a b\n[b]'],
    // After a failure the ERR dispatcher ran: `$_` is empty (a terminal shows the failed
    // command's last word, or that of the user's ERR trap), never the dispatcher's text.
    [[], 'false; echo "[$_]"', '[]'],
    [['set -e; trap "echo E" ERR'], 'false || false z; echo "[$_]"', 'E\n[exit code: 1]'],
    [['trap "echo E" ERR'], 'false z; echo "[$_]"', 'E\n[]'],
    [["trap 'echo D' DEBUG"], 'echo a b; echo "[$_]"', 'D\na b\nD\n[b]'],
    [['f() { :; }; trap "echo R" RETURN'], 'f k; echo "[$_]"', '[k]'],
    [['set -x'], 'false x y; echo "[$_]"', "+ false x y\n+ echo '[]'\n[]"],
    // From one call to the next it is not kept: empty, never the wrapper's.
    [['echo hi there'], 'echo "[$_]"', '[]'],
    [['false'], 'echo "[$_]"', '[]'],
    [['(exit 3)'], 'echo "[$_]"', '[]'],
    [['set -x', 'false'], 'echo "[$_]"', "+ echo '[]'\n[]"],
    [["trap 'echo D' DEBUG", 'false'], 'echo "[$_]"', 'D\n[]'],
  ];
  for (const row of rows) {
    it(`${row[0].join(' ⏎ ')} ⏎ ${row[1]}`, () => runRow(row));
  }
});

describe('$? after a line a person typed at the prompt', () => {
  const typist = { id: 'typist-1', name: 'Tia', role: 'operator' };

  it('is that line status, as the terminal showed it', async () => {
    const agent = `last-status-${++agents}`;
    expect(await engine.call('false', agent)).toBe('[exit code: 1]');
    const shell = liveShellOf(engine, agent);
    await shell.human.take(typist);
    shell.human.input(typist.id, 'echo typed-$((6 * 7)); (exit 6)\r');
    await vi.waitFor(async () => expect(await shell.screenText()).toContain('typed-42'), {
      timeout: 5000,
      interval: 20,
    });
    expect(await until(() => shellAtPrompt(shell.pid, 'sleep'), 5000)).toBe(true);
    await shell.human.release(typist.id);
    expect(await engine.call('echo $?', agent)).toBe(
      '[a human used this shell: echo typed-$((6 * 7)); (exit 6)]\n6',
    );
  });
});
