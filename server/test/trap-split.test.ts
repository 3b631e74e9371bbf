/**
 * post's split of one `trap -p DEBUG ERR RETURN` text into the three traps (see
 * pty/bash-trap-capture.ts), fuzzed against bash itself: real traps with generated actions
 * made of what bash's quoting and the split care about (quotes, backslashes, newlines, text
 * that looks like an entry's end or start), each split compared with `trap -p` of each trap
 * alone. The seed is printed; TRAP_SPLIT_SEED replays it.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { trapSplit } from '../src/pty/bash-trap-capture.ts';
import { randomFrom } from './fuzz/shell-fuzz.ts';

const SEED = Number(process.env.TRAP_SPLIT_SEED ?? Date.now() % 1_000_000);
const CASES = 400;
const PIECES = ["'", "'", '\\', '\n', ' ', '"', 'a', ' DEBUG', ' ERR', ' RETURN', 'trap -- ', '$'];
const SIGNALS = ['DEBUG', 'ERR', 'RETURN'] as const;
const T = '__jstest';

const dir = mkdtempSync(join(tmpdir(), 'jumpseat-trap-split-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/**
 * An action: the generated text inside a quoted here-document, so that a DEBUG trap firing
 * before the script's own steps runs nothing of it. Now and then empty (an ignored signal),
 * or one quote alone (which bash shows unquoted, as `\'`; run, it is a syntax error).
 */
function action(next: () => number): string {
  const kind = next();
  if (kind < 0.08) return '';
  if (kind < 0.16) return "'";
  const length = Math.floor(next() * 14);
  let text = '';
  for (let i = 0; i < length; i++) text += PIECES[Math.floor(next() * PIECES.length)];
  return `:<<'__END__'\n${text}\n__END__`;
}

/** Each case: per signal, `-` (no trap) or `+` and the action; every field ended by a NUL. */
function cases(seed: number): string {
  const next = randomFrom(seed);
  const fields: string[] = [];
  for (let c = 0; c < CASES; c++) {
    for (const _ of SIGNALS) fields.push(next() < 0.25 ? '-' : `+${action(next)}`);
  }
  return fields.map((field) => `${field}\0`).join('');
}

/** Sets each case's traps, splits what `trap -p` of all three shows, and compares. */
function script(casesFile: string): string {
  return `${T}_t=${dir}/traps
builtin mapfile -d '' f <${casesFile}
for (( c = 0; c < \${#f[@]}; c += 3 )); do
  trap - DEBUG ERR RETURN
  s=0
  for g in DEBUG ERR RETURN; do
    x=\${f[c + s]}; s=$(( s + 1 ))
    [[ $x == -* ]] || trap -- "\${x#+}" "$g"
  done
  { trap -p DEBUG ERR RETURN; printf '\\0'; } >${dir}/all
  { trap -p DEBUG; printf '\\0'; trap -p ERR; printf '\\0'; trap -p RETURN; printf '\\0'; } >${dir}/each
  trap - DEBUG ERR RETURN
  builtin mapfile -d '' -n 1 a <${dir}/all
  builtin mapfile -d '' -n 3 e <${dir}/each
  ${T}_lt=\${a[0]-}
  eval "$(<${dir}/split)"
  if [[ $${T}_lDEBUG == "\${e[0]-}" && $${T}_lERR == "\${e[1]-}" && $${T}_lRETURN == "\${e[2]-}" ]]; then
    echo same
  else
    echo "case $(( c / 3 )) differs: $(declare -p ${T}_lt ${T}_lDEBUG ${T}_lERR ${T}_lRETURN e)"
  fi
done
`;
}

describe('the split of the traps post reads', () => {
  it(`gives each trap as trap -p shows it alone (seed ${SEED})`, () => {
    console.log(`trap-split seed ${SEED} (TRAP_SPLIT_SEED=${SEED} replays it)`);
    const casesFile = join(dir, 'cases');
    writeFileSync(casesFile, cases(SEED));
    writeFileSync(join(dir, 'split'), trapSplit(T));
    const run = spawnSync('bash', ['--norc', '--noprofile', '-c', script(casesFile)], {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
      maxBuffer: 16 * 1024 * 1024,
    });
    const lines = run.stdout.split('\n').filter((line) => line !== '');
    expect(lines.filter((line) => line !== 'same')).toEqual([]);
    expect(lines).toHaveLength(CASES);
  });
});
