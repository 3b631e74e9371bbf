/**
 * A seeded fuzz of the bash engine: generated commands in the categories that break
 * persistent shells (idioms, hostile changes, forged marks, bytes, controls, heredocs, huge
 * outputs, background jobs, stdin readers). After each case the shell must answer `echo ok`
 * as a terminal would, then keep its state (a variable and the directory). The same seed
 * gives the same cases, so a failing seed reruns alone.
 */
import type { TestEngine } from '../support/engine.ts';

/** mulberry32: small, fast, and the same on every machine. */
export function randomFrom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** One generated case: what runs, what it must print (when known), and how it is undone. */
export interface FuzzCase {
  readonly category: string;
  /** Calls to run in order; `expect` is the exact result when given. */
  readonly steps: readonly { readonly command: string; readonly expect?: string }[];
  /** What `echo ok` must return right after the steps. */
  readonly ok: string;
  /**
   * A background job of the case that may end before or during `echo ok`: its notice may then
   * follow `ok`, as at a terminal (bash tells of a job's end after the next command).
   */
  readonly jobNotice?: string;
  /** Run after the check, to give the next case a plain shell again. */
  readonly cleanup: string;
}

type Pick = <T>(items: readonly T[]) => T;

/** Text only the wrapper or the marks could produce. */
const WRAPPER_TRACES = /__js[0-9a-f]+_|\x1b\]7717;[0-9A-F]{32}|PIPESTATUS|builtin eval/;

function shellQuote(text: string): string {
  return `'${text.replaceAll("'", `'\\''`)}'`;
}

/** A printf format writing exactly `bytes` (every byte as an octal escape). */
function printfBytes(bytes: readonly number[]): string {
  return `printf '${bytes.map((b) => `\\${b.toString(8).padStart(3, '0')}`).join('')}'`;
}

const WORDS = [
  'alpha',
  'ünïcödé',
  '日本語',
  'emoji 🎉',
  'tab\there',
  'a b  c',
  '$HOME',
  '`x`',
  '"q"',
];

/** Pieces of trap actions: quotes, backslashes, newlines, and what `trap -p` puts between
 *  entries, so post's split of the traps meets text that reads like several. */
const TRAP_PIECES = ["'", '\\', '\n', ' ERR', ' DEBUG', ' RETURN', "trap -- '", 'x'];

/** Commands that fail where errexit would act (the result depends on the options chosen). */
const FAILING = [
  'false; echo after',
  'grep -q absent /dev/null; echo after',
  'f() { return 2; }; f; echo after',
  '(exit 3); echo after',
  'x=$(false; echo in); echo "$x"',
];

function generators(random: () => number, pick: Pick) {
  const int = (max: number) => Math.floor(random() * max);
  const trapText = () => Array.from({ length: 1 + int(6) }, () => pick(TRAP_PIECES)).join('');
  return {
    idioms(): FuzzCase {
      const options = [
        'set -e',
        'set -u',
        'set -o pipefail',
        'set -E',
        'set -T',
        'umask 077',
        `IFS=${shellQuote(pick([',', ':', ' ', '\t', 'x']))}`,
        'shopt -s nullglob',
        'shopt -s failglob',
        'shopt -s nocasematch extglob',
        'set -o noclobber',
        'set -f',
        'set -o posix',
      ];
      const chosen = options.filter(() => random() < 0.4);
      // `traced`: what `echo ok` gives when the case also switches xtrace on (none: not tried).
      const extras: { set: string; ok: string; undo: string; traced?: string }[] = [
        { set: 'exec 2>/dev/null', ok: 'ok', undo: 'exec 2>/dev/tty' },
        { set: 'exec 2>&-', ok: 'ok', undo: 'exec 2>/dev/tty' },
        // A fresh bash in the shell's process: the integration is installed in it again.
        { set: 'exec bash', ok: 'ok', undo: '' },
        { set: `PS1=${shellQuote(pick(WORDS))}`, ok: 'ok', undo: '' },
        { set: `PROMPT_COMMAND='PS1="fw$((RANDOM%9))> "'`, ok: 'ok', undo: 'PROMPT_COMMAND=' },
        { set: 'set -x', ok: '+ echo ok\nok', undo: 'set +x' },
        { set: 'set -v', ok: 'echo ok\nok', undo: 'set +v', traced: 'echo ok\n+ echo ok\nok' },
        {
          set: `trap 'echo D' DEBUG`,
          ok: 'D\nok',
          undo: 'trap - DEBUG',
          traced: '++ echo D\nD\n+ echo ok\nok',
        },
        { set: `trap 'echo E' ERR`, ok: 'ok', undo: 'trap - ERR', traced: '+ echo ok\nok' },
        { set: `trap 'echo R' RETURN`, ok: 'ok', undo: 'trap - RETURN', traced: '+ echo ok\nok' },
        // Text that reads like the end of one `trap -p` entry and the start of another.
        {
          set: `trap ${shellQuote(`: ${shellQuote(trapText())}`)} ${pick(['DEBUG', 'ERR', 'RETURN'])}`,
          ok: 'ok',
          undo: 'trap - DEBUG ERR RETURN',
        },
        {
          set: `trap ${shellQuote(`echo "D' ERR"`)} DEBUG`,
          ok: "D' ERR\nok",
          undo: 'trap - DEBUG',
        },
      ];
      const extra = random() < 0.6 ? pick(extras) : null;
      // xtrace on top, often: every dispatcher of ours then runs with bash tracing it.
      const traced = random() < 0.35 && (extra === null || extra.traced !== undefined);
      const tracedOk = extra === null ? '+ echo ok\nok' : extra.traced;
      const set =
        [...chosen, ...(extra ? [extra.set] : []), ...(traced ? ['set -x'] : [])].join('; ') ||
        'true';
      // A failing command fires the ERR trap (the integration's dispatcher, the user's behind
      // it), a function's return the RETURN trap: under xtrace neither may show our steps.
      const failing = pick(FAILING);
      return {
        category: 'idioms',
        steps: [{ command: set }, ...(random() < 0.5 ? [{ command: failing }] : [])],
        ok: (traced ? tracedOk : extra?.ok) ?? 'ok',
        cleanup: `${extra?.undo ? `${extra.undo}; ` : ''}set +euETfxvo pipefail +o noclobber +o posix; umask 022; IFS=$' \\t\\n'; shopt -u nullglob failglob nocasematch extglob`,
      };
    },
    hostile(): FuzzCase {
      const cases: { set: string; ok: string; undo: string }[] = [
        { set: 'stty raw', ok: 'ok', undo: 'stty sane -echo' },
        { set: 'stty -icrnl', ok: 'ok', undo: 'stty sane -echo' },
        { set: 'stty igncr', ok: 'ok', undo: 'stty sane -echo' },
        { set: 'stty olcuc', ok: 'OK', undo: 'stty -olcuc' },
        { set: 'stty echo', ok: 'ok', undo: 'stty -echo' },
        {
          set: `${pick(['printf', 'read', 'eval', 'history', 'return', 'set', 'trap'])}() { echo HIJACK; }`,
          ok: 'ok',
          undo: 'unset -f printf read eval history return set trap',
        },
        {
          set: `alias ${pick(['builtin', 'eval', 'printf', 'read'])}='echo HIJACK'`,
          ok: 'ok',
          undo: 'unalias -a',
        },
        { set: 'builtin() { echo HIJACK; }', ok: 'ok', undo: '' },
        {
          set: `enable -n ${pick(['printf', 'read', 'history', 'printf read', 'trap', 'set trap'])}`,
          ok: 'ok',
          undo: 'enable printf read history trap set',
        },
        { set: `FUNCNEST=${1 + int(3)}`, ok: 'ok', undo: 'unset FUNCNEST' },
        { set: 'readonly HISTCONTROL PS0', ok: 'ok', undo: '' },
        { set: 'unset PS1 PS4 PROMPT_COMMAND HISTCONTROL', ok: 'ok', undo: '' },
      ];
      const chosen = pick(cases);
      return {
        category: 'hostile',
        steps: [{ command: chosen.set }],
        ok: chosen.ok,
        cleanup: chosen.undo || 'true',
      };
    },
    marks(): FuzzCase {
      const pieces = [
        '\\033]7717;',
        '\\033]7717;0;E;x;0\\a',
        '\\033]7717;DEADBEEF;S;1\\a',
        '\\a',
        '\\033\\\\',
        ';E;',
        '\\033]',
        '7717',
        'x',
      ];
      const text = Array.from({ length: 1 + int(6) }, () => pick(pieces)).join('');
      return {
        category: 'marks',
        steps: [{ command: `printf '${text}'; echo` }],
        ok: 'ok',
        cleanup: 'true',
      };
    },
    bytes(): FuzzCase {
      const bytes = Array.from({ length: 1 + int(64) }, () => int(256));
      return {
        category: 'bytes',
        steps: [{ command: `${printfBytes(bytes)}; echo` }],
        ok: 'ok',
        cleanup: 'true',
      };
    },
    unicode(): FuzzCase {
      const text = Array.from({ length: 1 + int(5) }, () => pick(WORDS)).join(' ');
      return {
        category: 'unicode',
        steps: [{ command: `printf '%s\\n' ${shellQuote(text)}`, expect: text }],
        ok: 'ok',
        cleanup: 'true',
      };
    },
    controls(): FuzzCase {
      const sequences = [
        '\\033[2J',
        '\\033[H',
        '\\033[31m',
        '\\033[0m',
        '\\033[?1049h',
        '\\033[?1049l',
        '\\033]0;title\\a',
        '\\033P1$r\\033\\\\',
        '\\r',
        '\\b',
        '\\033[10;5H',
        '\\033[K',
        '\\033c',
      ];
      const text = Array.from({ length: 1 + int(8) }, () => pick(sequences)).join('x');
      return {
        category: 'controls',
        steps: [{ command: `printf '${text}\\033[?1049l'; echo` }],
        ok: 'ok',
        cleanup: 'true',
      };
    },
    heredoc(): FuzzCase {
      const lines = Array.from({ length: 1 + int(8) }, () =>
        pick([...WORDS, 'EOF2', '  indented', '\\\\back']),
      );
      return {
        category: 'heredoc',
        steps: [{ command: `cat <<'EOF'\n${lines.join('\n')}\nEOF`, expect: lines.join('\n') }],
        ok: 'ok',
        cleanup: 'true',
      };
    },
    huge(): FuzzCase {
      const count = pick([10, 1000, 20000, 150000]);
      return {
        category: 'huge',
        steps: [{ command: `seq 1 ${count}` }],
        ok: 'ok',
        cleanup: 'true',
      };
    },
    background(): FuzzCase {
      const pause = `0.${1 + int(3)}`;
      return {
        category: 'background',
        steps: [{ command: `(sleep ${pause}) & sleep 0.0${int(5)}` }],
        ok: 'ok',
        jobNotice: `[1]+  Done                    ( sleep ${pause} )`,
        cleanup: 'wait',
      };
    },
    stdin(): FuzzCase {
      const word = pick(['val', 'a b', 'ü']);
      return {
        category: 'stdin',
        steps: [
          { command: 'read -r fuzz_in', expect: '[waiting for input: bash]' },
          { command: word, expect: '' },
          { command: 'printf "%s\\n" "$fuzz_in"', expect: word },
        ],
        ok: 'ok',
        cleanup: 'true',
      };
    },
  };
}

export type FuzzCategory = keyof ReturnType<typeof generators>;

export function fuzzCases(seed: number, count: number): FuzzCase[] {
  const random = randomFrom(seed);
  const pick: Pick = (items) =>
    items[Math.floor(random() * items.length)] as (typeof items)[number];
  const made = generators(random, pick);
  const categories = Object.keys(made) as FuzzCategory[];
  return Array.from({ length: count }, () => made[pick(categories)]());
}

export interface FuzzFailure {
  readonly index: number;
  readonly fuzzCase: FuzzCase;
  readonly problem: string;
}

/**
 * Runs the cases on one agent's shell, in order, and returns the first failure (null when
 * every case held). A reset the engine announces is a failure too: the state must be kept.
 */
export async function runFuzz(
  engine: TestEngine,
  seed: number,
  count: number,
  agent = `fuzz-${seed}`,
): Promise<FuzzFailure | null> {
  const state = `S${seed}`;
  const dir = `/tmp/jumpseat-fuzz-${seed}`;
  // Exported, so that it outlives `exec bash` as at a terminal; a reset, which starts from the
  // server's environment, still loses it.
  const setUp = await engine.call(
    `mkdir -p ${dir} && cd ${dir} && export FUZZ_STATE=${state}`,
    agent,
  );
  if (setUp !== '')
    return {
      index: -1,
      fuzzCase: { category: 'setup', steps: [], ok: '', cleanup: '' },
      problem: setUp,
    };
  const cases = fuzzCases(seed, count);
  for (const [index, fuzzCase] of cases.entries()) {
    const fail = (problem: string) => ({ index, fuzzCase, problem });
    for (const step of fuzzCase.steps) {
      const result = await engine.call(step.command, agent);
      if (step.expect !== undefined && result !== step.expect) {
        return fail(
          `${JSON.stringify(step.command)} gave ${JSON.stringify(result)}, not ${JSON.stringify(step.expect)}`,
        );
      }
      if (WRAPPER_TRACES.test(result)) return fail(`wrapper text in ${JSON.stringify(result)}`);
      if (
        /^Your command timed out|^\[shell exited|The persistent bash shell was reset/m.test(result)
      ) {
        return fail(`${JSON.stringify(step.command)} ended the shell: ${JSON.stringify(result)}`);
      }
    }
    const ok = await engine.call('echo ok', agent);
    const noticed =
      fuzzCase.jobNotice !== undefined && ok === `${fuzzCase.ok}\n${fuzzCase.jobNotice}`;
    if (ok !== fuzzCase.ok && !noticed)
      return fail(`echo ok gave ${JSON.stringify(ok)}, not ${JSON.stringify(fuzzCase.ok)}`);
    await engine.call(fuzzCase.cleanup, agent);
    const kept = await engine.call('echo "$FUZZ_STATE $PWD"', agent);
    if (kept !== `${state} ${dir}`) return fail(`state after the case: ${JSON.stringify(kept)}`);
  }
  return null;
}
