/**
 * What agents really type does not break the shell (issue 14): each row is run on its own
 * agent's shell, after a call that sets state; the next call must give the terminal's answer
 * and find the state kept. Texts are exact.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { sharedEngine } from './support/engine.ts';

const engine = sharedEngine({ flags: ['--timeout-ms', '15000'] });
let agents = 0;

/** Text only the wrapper or the marks could produce. */
const WRAPPER_TRACES = /__js[0-9a-f]+_|7717;|PIPESTATUS|builtin eval|\\builtin |[0-9A-F]{32}/;

/** A fresh agent whose shell has a variable set and /tmp as its directory. */
async function shellWithState(): Promise<string> {
  const agent = `idiom-${++agents}`;
  expect(await engine.call('KEPT=yes; cd /tmp', agent)).toBe('');
  return agent;
}

async function expectStateKept(agent: string): Promise<void> {
  expect(await engine.call('echo "$KEPT $PWD"', agent)).toBe('yes /tmp');
}

async function screenOf(agent: string): Promise<string> {
  const info = engine.tools.registry
    .sessions()
    .find((s) => s.agent === agent && s.state !== 'exited');
  return (await engine.tools.registry.find(info?.id ?? '')?.snapshot())?.data ?? '';
}

describe('the table of issue 14: the next `echo ok` gives the terminal answer, state kept', () => {
  const rows: [string, string][] = [
    ['set -e', 'ok'],
    ['set -euo pipefail', 'ok'],
    ['set -eu; set -o pipefail; set -E', 'ok'],
    ['exec 2>/dev/null', 'ok'],
    ['exec 2>>log', 'ok'],
    ['exec 2>&-', 'ok'],
    [`PROMPT_COMMAND='PS1="x\\$ "'`, 'ok'],
    ['set -x', '+ echo ok\nok'],
    ['set -v', 'echo ok\nok'],
    ['set -xv', 'echo ok\n+ echo ok\nok'],
    [`trap 'echo D' DEBUG`, 'D\nok'],
    // In the call that sets it, a DEBUG trap also runs before the integration's own steps:
    // what it prints of them (their text in $BASH_COMMAND) must not reach the result.
    [`trap 'echo "[$BASH_COMMAND]"' DEBUG`, '[echo ok]\nok'],
    [`set -T; trap 'echo "[$BASH_COMMAND]" >&2' DEBUG`, '[echo ok]\nok'],
    // Under xtrace the ERR trap watch's steps trace nowhere (bash-quiet-traps.ts).
    [`set -x; trap 'echo T' ERR; false; echo after`, '+ echo ok\nok'],
    ['builtin() { echo HIJACKED; }', 'ok'],
    ['stty raw', 'ok'],
    ['stty -icrnl', 'ok'],
    ['stty igncr', 'ok'],
    ['stty olcuc', 'OK'],
    [`printf 'A\\033]7717;'`, 'ok'],
    ['set -T; trap "echo R" RETURN', 'ok'],
    ['umask 077; IFS=,; shopt -s nullglob extglob failglob nocasematch', 'ok'],
    ['enable -n echo printf read', 'ok'],
    ['FUNCNEST=1', 'ok'],
    ['set -o posix', 'ok'],
    ['set -o noclobber -o noglob', 'ok'],
    ['readonly PS1 PS4 PROMPT_COMMAND', 'ok'],
    ['unset PS1 PROMPT_COMMAND PS4', 'ok'],
    // Declared read-only with no value: `[[ -v ]]` says unset, and an assignment fails.
    ['PROMPT_COMMAND=(); readonly PROMPT_COMMAND', 'ok'],
    ['unset PS1; readonly PS1', 'ok'],
    ['unset PS4; readonly PS4', 'ok'],
    ['unset HISTCONTROL; readonly HISTCONTROL', 'ok'],
    ['unset PS1 PS4 HISTCONTROL; readonly PS1 PS4 HISTCONTROL; set -u', 'ok'],
    // Under set -e bash ends the shell when `printf -v` meets a read-only variable.
    ['set -e; unset PS1 PS4 HISTCONTROL; readonly PS1 PS4 HISTCONTROL', 'ok'],
    ['set -eu; unset PS1 PS4 HISTCONTROL; readonly PS1 PS4 HISTCONTROL', 'ok'],
    ['set -e; PROMPT_COMMAND=(); readonly PROMPT_COMMAND; PS1="ro> "', 'ok'],
    ['set -e; readonly PS1 PS4 PROMPT_COMMAND HISTCONTROL', 'ok'],
    ['PS1=; PS4=', 'ok'],
    ['alias builtin=false eval=false; printf() { echo x; }; read() { echo x; }', 'ok'],
    ['for f in $(compgen -A function __js); do unset -f "$f"; done', 'ok'],
    // Every variable the integration sets was exported, and the shell reset at every call.
    ['set -a', 'ok'],
    ['set -o allexport; trap "echo D >/dev/null" DEBUG; trap "false" RETURN', 'ok'],
  ];
  for (const [row, answer] of rows) {
    it(`after ${JSON.stringify(row)}`, async () => {
      const agent = await shellWithState();
      const first = await engine.call(row, agent);
      expect(first).not.toMatch(WRAPPER_TRACES);
      expect(await engine.call('echo ok', agent)).toBe(answer);
      if (answer === 'ok') await expectStateKept(agent);
      // The broken introducer is the command's own output: the screen shows it, no nonce.
      const screen = await screenOf(agent);
      if (row.includes('7717')) expect(screen).not.toMatch(/[0-9A-F]{32}/);
      else expect(screen).not.toMatch(WRAPPER_TRACES);
    });
  }

  it('keeps the shell when a command fails under set -e, set -u or pipefail', async () => {
    const agent = await shellWithState();
    await engine.call('set -euo pipefail', agent);
    // A terminal would close; the shell stays, and the call stops as a script would.
    expect(await engine.call('false; echo after', agent)).toBe('[exit code: 1]');
    expect(await engine.call('false | true', agent)).toBe('[exit code: 1]');
    expect(await engine.call('echo "$NOT_SET_ANYWHERE"', agent)).toBe(
      'bash: NOT_SET_ANYWHERE: unbound variable\n[exit code: 1]',
    );
    expect(await engine.call('echo "${-//[^eu]/}"; set -o | grep pipefail', agent)).toBe(
      'eu\npipefail       \ton',
    );
    await expectStateKept(agent);
  });

  it('is not hijacked by a function named eval', async () => {
    const agent = await shellWithState();
    await engine.call('eval() { echo HIJACKED; }; set -e', agent);
    expect(await engine.call('false; echo no', agent)).toBe('[exit code: 1]');
    expect(await engine.call('echo ok', agent)).toBe('ok');
    await expectStateKept(agent);
  });

  it('shows a broken mark introducer as the command printed it and still ends the call', async () => {
    const agent = await shellWithState();
    expect(await engine.call(`printf 'A\\033]7717;'; echo`, agent)).toBe('A');
    expect(await engine.call(`printf 'B\\033]7717;0;E;x;0\\a'; echo C`, agent)).toBe('BC');
    expect(await screenOf(agent)).not.toMatch(/[0-9A-F]{32}/);
  });

  it("numbers the command's lines from 1, as a script does (`bash -c` gives the same lines)", async () => {
    const agent = await shellWithState();
    expect(await engine.call('echo $LINENO', agent)).toBe('1');
    expect(await engine.call('echo a\necho $LINENO', agent)).toBe('a\n2');
    expect(await engine.call('if true; then echo x', agent)).toBe(
      'bash: eval: line 2: syntax error: unexpected end of file\n[exit code: 2]',
    );
    expect(await engine.call('echo a\nfi', agent)).toBe(
      "a\nbash: eval: line 2: syntax error near unexpected token `fi'\nbash: eval: line 2: `fi'\n[exit code: 2]",
    );
    await expectStateKept(agent);
  });

  it('lets a read with a short time limit give up, as at a terminal, and calls a long one waiting', async () => {
    const agent = await shellWithState();
    // `read -t` waits in a select that returns by itself: not yet a program waiting for input.
    expect(await engine.call('read -t 0.3 v; echo "rc=$?"', agent)).toBe('rc=142');
    expect(await engine.call('read -t 30 v; echo "rc=$? $v"', agent)).toBe(
      '[waiting for input: bash]',
    );
    expect(await engine.call('typed', agent)).toBe('rc=0 typed');
    await expectStateKept(agent);
  });

  it('takes prompts replayed from a file that stderr went to as output (they name other calls)', async () => {
    const agent = await shellWithState();
    // bash writes its prompt, marks and all, to stderr: here into the file.
    expect(await engine.call('exec 2>prompts.log', agent)).toBe('');
    expect(await engine.call('echo one', agent)).toBe('one');
    expect(await engine.call('false', agent)).toBe('[exit code: 1]');
    const replay = await engine.call(
      'exec 2>/dev/tty; for i in 1 2 3; do cat prompts.log; done >/dev/null; cat prompts.log; echo done',
      agent,
    );
    // The three prompts the file holds (one per call since), as text: the call goes on.
    expect(replay).toBe('/tmp$ /tmp$ /tmp$ done');
    expect(await engine.call('echo ok; rm prompts.log', agent)).toBe('ok');
    await expectStateKept(agent);
  });

  it('keeps the shell nonce and the mark format out of the prompt string', async () => {
    const agent = await shellWithState();
    expect(await engine.call('echo "$PS1"', agent)).not.toMatch(/7717|[0-9A-F]{32}/);
    expect(await engine.call('env | grep -c 7717', agent)).toBe('0\n[exit code: 1]');
  });

  it('keeps a command-set PS1, PS4 and prompt framework working', async () => {
    const agent = await shellWithState();
    await engine.call(`PS4='TRACE '; PROMPT_COMMAND='PS1="fw:\\w> "'; set -x`, agent);
    expect(await engine.call('echo ok', agent)).toBe('TRACE echo ok\nok');
    expect(await engine.call('set +x; echo "$PS4"', agent)).toBe('TRACE set +x\nTRACE ');
    expect(await screenOf(agent)).toContain('fw:/tmp> ');
  });

  it('keeps the prompt marks when PROMPT_COMMAND is read-only and the hook cannot come back', async () => {
    const agent = await shellWithState();
    expect(await engine.call(`PROMPT_COMMAND=(); readonly PROMPT_COMMAND; PS1='ro> '`, agent)).toBe(
      '',
    );
    // A `set -u` error abandons the whole line, post with it: only the prompt's mark, put back
    // by the call before, ends this call with its status.
    expect(await engine.call('set -u; echo "$NOT_SET_HERE"; echo never', agent)).toBe(
      'bash: NOT_SET_HERE: unbound variable\n[exit code: 1]',
    );
    expect(await engine.call('set +u; echo ok', agent)).toBe('ok');
    expect(await screenOf(agent)).toContain('ro> ');
    await expectStateKept(agent);
  });

  it('keeps stdout redirected as at a terminal, and restored', async () => {
    const agent = await shellWithState();
    expect(await engine.call('exec 3>&1 >/dev/null', agent)).toBe('');
    expect(await engine.call('echo hidden; echo shown >&3', agent)).toBe('shown');
    expect(await engine.call('exec >&3 3>&-; echo back', agent)).toBe('back');
  });

  it('writes stderr to the file a command sent it to', async () => {
    const agent = await shellWithState();
    await engine.call('exec 2>>/tmp/idiom-err.log', agent);
    expect(await engine.call('ls /no-such-dir; echo after', agent)).toBe('after');
    expect(
      await engine.call('exec 2>/dev/tty; grep -c no-such-dir /tmp/idiom-err.log', agent),
    ).toBe('1');
  });

  it('runs a command in a removed directory, as a terminal does', async () => {
    const agent = await shellWithState();
    await engine.call(
      'mkdir -p /tmp/idiom-gone && cd /tmp/idiom-gone && rmdir /tmp/idiom-gone',
      agent,
    );
    expect(await engine.call('echo ok; cd /tmp', agent)).toBe('ok');
    await expectStateKept(agent);
  });

  it('resets a shell whose integration variables a command made read-only, and says so', async () => {
    const agent = await shellWithState();
    await engine.call('readonly $(compgen -v __js)', agent);
    expect(await engine.call('echo ok', agent)).toBe(
      '[shell exited]\nThe persistent bash shell was reset; the next bash call starts from the ' +
        'workspace with a fresh current directory and environment.',
    );
    expect(await engine.call('echo fresh', agent)).toBe('fresh');
  });

  it('says so when an empty read-only PROMPT_COMMAND under set -eu ends the shell', async () => {
    // The one read-only variable post cannot see under `set -u`: its `printf -v` fails, and
    // under `set -e` bash ends the shell. The call's own output comes first, then the reset.
    const agent = await shellWithState();
    expect(
      await engine.call('set -eu; PROMPT_COMMAND=(); readonly PROMPT_COMMAND; echo set', agent),
    ).toBe(
      'set\n[shell exited: code 1]\nThe persistent bash shell was reset; the next bash call starts ' +
        'from the workspace with a fresh current directory and environment.',
    );
    expect(await engine.call('echo ok', agent)).toBe('ok');
  });

  it('ends the shell, as a terminal does, when an ERR trap exits', async () => {
    const agent = await shellWithState();
    expect(await engine.call('trap "exit 3" ERR; false', agent)).toBe(
      '[shell exited: code 3]\nThe persistent bash shell was reset; the next bash call starts ' +
        'from the workspace with a fresh current directory and environment.',
    );
    expect(await engine.call('echo ok', agent)).toBe('ok');
  });
});

/**
 * A command that counts its runs in the agent's workspace, which outlives its shell (a sandbox's
 * /tmp is the shell's own: a new shell would count from nothing there).
 */
function countRun(agent: string): string {
  const log = join(engine.workspaceOf(agent), 'runs.log');
  return `echo ran >> '${log}'; wc -l < '${log}'`;
}

/** What the runs counted by countRun left, read outside the shell. */
function runsOf(agent: string): string {
  return readFileSync(join(engine.workspaceOf(agent), 'runs.log'), 'utf8');
}

describe('set -a kept from call to call, as a terminal keeps it', () => {
  // With allexport on, bash exports every variable an assignment touches: the integration's
  // too, which pre took for tampering (the shell was reset at every call), and which would
  // have put the command's own text in every program's environment.
  const rows: [before: string, command: string, answer: string][] = [
    ['set -a', 'x=1; env | grep -c "^x=1"; env | grep -c __js', '1\n0\n[exit code: 1]'],
    // After a failed call: the last status is given back through the ERR trap.
    ['set -a; false', 'env | grep -c __js; [[ $- == *a* ]] && echo kept', '0\nkept'],
    ['set -ae; trap ":" ERR DEBUG', 'false || env | grep -c __js', '0\n[exit code: 1]'],
    [
      'set -a; f() { :; }; trap "true" RETURN',
      'f; y=2; env | grep -c ^y=; env | grep -c __js',
      '1\n0\n[exit code: 1]',
    ],
  ];
  for (const [before, command, answer] of rows) {
    it(`${before} ⏎ ${command}`, async () => {
      const agent = await shellWithState();
      await engine.call(before, agent);
      expect(await engine.call(command, agent)).toBe(answer);
      expect(await engine.call('echo "$-"', agent)).toMatch(/a/);
      await expectStateKept(agent);
    });
  }

  it('passes a command longer than a variable of the environment may be to the programs it starts', async () => {
    const agent = await shellWithState();
    await engine.call('set -a', agent);
    const long = `: ${'y'.repeat(140_000)}; /bin/echo started`;
    expect(await engine.call(long, agent)).toBe('started');
  });
});

describe('races', () => {
  it('continues a shell stopped by a signal, with its state, in the call or between calls', async () => {
    // Nobody is there to `fg` it: the call ran to its deadline, and the shell was reset.
    const agent = await shellWithState();
    expect(await engine.call('suspend; echo after-suspend', agent)).toBe('after-suspend');
    expect(await engine.call('kill -STOP $$; echo after-stop', agent)).toBe('after-stop');
    expect(await engine.call('(sleep 0.2; kill -STOP $$) & disown', agent)).toBe('');
    await new Promise((resolve) => setTimeout(resolve, 600));
    expect(await engine.call('echo next', agent)).toBe('next');
    await expectStateKept(agent);
  });

  it('replaces a shell that died between calls and runs the next command once', async () => {
    const agent = await shellWithState();
    const pid = engine.tools.registry.sessions().find((s) => s.agent === agent)?.pid ?? 0;
    expect(pid).toBeGreaterThan(0);
    process.kill(pid, 'SIGKILL');
    expect(await engine.call(countRun(agent), agent)).toBe('1');
    expect(runsOf(agent)).toBe('ran\n');
  });

  it('replaces a shell that died while the next call waited for its prompt', async () => {
    const agent = await shellWithState();
    // The prompt after this call takes 5 s to draw: the next call waits for it (2 s at most).
    expect(await engine.call(`PS1='$(sleep 5)'"$PS1"`, agent)).toBe('');
    const pid = engine.tools.registry.sessions().find((s) => s.agent === agent)?.pid ?? 0;
    expect(pid).toBeGreaterThan(0);
    // Stopped, the shell still counts as running when the call begins; it dies in the wait.
    process.kill(pid, 'SIGSTOP');
    const next = engine.call(countRun(agent), agent);
    await new Promise((resolve) => setTimeout(resolve, 500));
    process.kill(pid, 'SIGKILL');
    expect(await next).toBe('1');
    expect(runsOf(agent)).toBe('ran\n');
  });

  it('never reports a read answered at once as waiting for input (bounded: 25 rounds)', async () => {
    const agent = await shellWithState();
    for (let round = 0; round < 25; round++) {
      expect(await engine.call('read -p "name? " n', agent)).toBe(
        'name? \n[waiting for input: bash]',
      );
      expect(await engine.call(`bot${round}`, agent)).toBe('');
      expect(await engine.call('echo "$n"', agent)).toBe(`bot${round}`);
    }
  });
});
