/**
 * Under `set -x` and `set -v`, a call's result traces and echoes what a terminal would, and
 * nothing of ours (issue 22.4; bash-quiet-traps.ts, bash-trace-options.ts): the integration's ERR, DEBUG and RETURN dispatchers fire on
 * every failing command, every step, every return, and bash traces a trap action's steps.
 * Each row is a sequence of calls on a fresh shell with their exact results, checked against
 * an interactive bash by hand (a terminal shows a command substitution's trace one level
 * deeper, `++ false`; the engine shows every level of the command as one `+`, as before).
 */
import { describe, expect, it } from 'vitest';
import { sharedEngine } from './support/engine.ts';

const engine = sharedEngine({ flags: ['--timeout-ms', '15000'] });
let agents = 0;

/** Text only the wrapper could produce. */
const WRAPPER_TEXT = /__js[0-9a-f]+_|7717;|\\builtin |builtin eval|99>&/;

type Step = readonly [command: string, answer: string];

const rows: readonly (readonly [name: string, steps: readonly Step[]])[] = [
  [
    'a failing command (the ERR dispatcher fires)',
    [
      ['set -x', ''],
      ['false; echo after', '+ false\n+ echo after\nafter'],
      ['grep -q absent /dev/null || echo none', '+ grep -q absent /dev/null\n+ echo none\nnone'],
    ],
  ],
  [
    'set -e set in an earlier call',
    [
      ['set -ex', ''],
      ['false; echo no', '+ false\n[exit code: 1]'],
      ['echo ok', '+ echo ok\nok'],
    ],
  ],
  [
    'an ERR trap of the user, set before xtrace',
    [
      [`trap 'echo E' ERR; set -x`, ''],
      ['false; echo after', '+ false\n++ echo E\nE\n+ echo after\nafter'],
      ['set -e; false; echo no', '+ set -e\n+ false\n++ echo E\nE\n[exit code: 1]'],
    ],
  ],
  [
    'an ERR trap and set -e in the same call (the ERR trap watch)',
    [
      [
        `set -ex; trap 'echo T' ERR; false; echo after`,
        `+ trap 'echo T' ERR\n+ false\n++ echo T\nT\n[exit code: 1]`,
      ],
      ['echo ok', '+ echo ok\nok'],
    ],
  ],
  [
    "the user's ERR trap writes where the failing command's stderr went",
    [
      [`set -x; trap 'echo E >&2' ERR`, `+ trap 'echo E >&2' ERR`],
      ['{ false; } 2>/dev/null; echo after', '+ echo after\nafter'],
      ['false; echo after', '+ false\n++ echo E\nE\n+ echo after\nafter'],
    ],
  ],
  [
    'a DEBUG trap of the user',
    [
      [`trap 'echo D' DEBUG`, ''],
      ['set -x', 'D'],
      ['echo hi', '++ echo D\nD\n+ echo hi\nhi'],
      ['trap - DEBUG', '++ echo D\nD\n+ trap - DEBUG'],
      ['echo ok', '+ echo ok\nok'],
    ],
  ],
  [
    'a RETURN trap of the user, with functrace',
    [
      [`set -T; f() { :; }; trap 'echo R' RETURN; echo set`, 'set\nR'],
      ['set -x', ''],
      ['f', '+ f\n+ :\n++ echo R\nR'],
      ['trap - RETURN; f', '+ trap - RETURN\n+ f\n+ :'],
    ],
  ],
  [
    'a PS4 of the user',
    [
      [`PS4='>> '; trap 'echo E' ERR; set -x`, ''],
      ['false', '>> false\n>>> echo E\nE\n[exit code: 1]'],
    ],
  ],
  [
    'xtrace switched on in the call itself',
    [['set -x; false; echo after', '+ false\n+ echo after\nafter']],
  ],
  [
    'verbose: each command and trap action echoed once, as read',
    [
      ['set -v', ''],
      ['echo hi', 'echo hi\nhi'],
      ['false; echo x', 'false; echo x\nx'],
      [`trap 'echo E' ERR`, `trap 'echo E' ERR`],
      ['false', 'false\necho E\nE\n[exit code: 1]'],
      ['set -x', 'set -x'],
      ['false', 'false\n+ false\necho E\n++ echo E\nE\n[exit code: 1]'],
      ['set +v', 'set +v\n+ set +v'],
      ['echo ok', '+ echo ok\nok'],
    ],
  ],
  [
    'verbose switched on in the call itself, and off again',
    [
      ['set -v; echo a', 'a'],
      ['echo b', 'echo b\nb'],
      ['set +o verbose; echo c', 'set +o verbose; echo c\nc'],
      ['echo d', 'd'],
    ],
  ],
];

describe('under xtrace a call traces what a terminal traces, nothing of ours', () => {
  for (const [name, steps] of rows) {
    it(name, async () => {
      const agent = `xtrace-${++agents}`;
      for (const [command, answer] of steps) {
        const result = await engine.call(command, agent);
        expect(result, command).not.toMatch(WRAPPER_TEXT);
        expect(result, command).toBe(answer);
      }
      // The shell answers as before, xtrace as the user left it.
      expect(await engine.call('set +x; echo ok', agent)).toMatch(/^((\+|>>) set \+x\n)?ok$/);
    });
  }

  it('keeps set -e under xtrace in a call that defines an alias named `{` (plain dispatchers)', async () => {
    const agent = `xtrace-${++agents}`;
    // A group in a trap action is parsed with the aliases of the moment: a call whose text
    // defines an alias named `{` keeps the plain dispatchers, which it cannot break (their
    // steps then show: bash-quiet-traps.ts says so).
    const result = await engine.call(`set -ex; alias '{'='echo brace'; false; echo no`, agent);
    expect(result).toMatch(/\[exit code: 1\]$/);
    expect(result).not.toMatch(/syntax error|\+ echo no/);
    expect(await engine.call('echo ok', agent)).toBe('+ echo ok\nok');
    // Other aliases keep the dispatchers quiet.
    expect(await engine.call(`alias ll='ls -d'; false; echo no`, agent)).toBe(
      `+ alias 'll=ls -d'\n+ false\n[exit code: 1]`,
    );
  });
});
