/**
 * `exec bash` replaces the shell by a fresh bash: the engine installs its integration in that
 * one, the call ends as the command did, and the agent's next calls run there as before,
 * with what the new shell kept (exported variables, the directory). Texts are exact.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { bashPath } from '../src/pty/bash-executable.ts';
import { liveShellOf, sharedEngine, type TestEngine } from './support/engine.ts';
import { until } from './support/until.ts';

/** The tool contract's line after a shell's own exit. */
const RESET_LINE =
  'The persistent bash shell was reset; the next bash call starts from the workspace with a fresh current directory and environment.';

/** Text only the integration could produce. */
const INTEGRATION_TRACES = /integration\.bash|__js[0-9a-f]+_|7717;|[0-9A-F]{32}/;

/**
 * A person takes the controls of `agent`'s shell, types `line`, and lets go as soon as the
 * shell process runs a command line that `execd` accepts (the new program may still start).
 */
async function personExecs(
  engine: TestEngine,
  agent: string,
  line: string,
  execd: (commandLine: string) => boolean,
) {
  const shell = liveShellOf(engine, agent);
  const typist = { id: `typist-${agent}`, name: 'Tia', role: 'operator' } as const;
  await shell.human.take(typist);
  shell.human.input(typist.id, `${line}\r`);
  const running = () => execd(readFileSync(`/proc/${shell.pid}/cmdline`, 'utf8'));
  expect(await until(running, 10_000, 5)).toBe(true);
  await shell.human.release(typist.id);
  return shell;
}

function engineCases(engine: TestEngine): void {
  let agents = 0;
  const nextAgent = () => `exec-${++agents}`;

  it('ends `exec bash` with its status, keeping what a new bash keeps', async () => {
    const agent = nextAgent();
    expect(await engine.call('x=mine; export Y=exported; cd /tmp', agent)).toBe('');
    expect(await engine.call('exec bash', agent)).toBe('');
    expect(await engine.call('echo "x=$x Y=$Y $PWD"', agent)).toBe('x= Y=exported /tmp');
    expect(await engine.call('false', agent)).toBe('[exit code: 1]');
  });

  it('takes the same command line twice in a row (each exec is a new program)', async () => {
    const agent = nextAgent();
    for (let round = 0; round < 3; round++) {
      expect(await engine.call('exec bash', agent)).toBe('');
      expect(await engine.call(`echo round-${round}`, agent)).toBe(`round-${round}`);
    }
  });

  it('names the bash it runs in SHELL, whatever the server\u2019s SHELL is', async () => {
    const agent = nextAgent();
    expect(await engine.call('echo "$SHELL"; "$SHELL" -c \'echo "$BASH"\'', agent)).toBe(
      `${bashPath()}\n${bashPath()}`,
    );
  });

  it.each([
    ['exec bash -l'],
    ['exec bash --norc --noprofile'],
    ['exec "$SHELL"'],
    ['exec -a my-shell bash -i'],
    ['exec env FROM_ENV=1 bash'],
  ])('installs itself in the shell %s starts', async (command) => {
    const agent = nextAgent();
    expect(await engine.call(command, agent)).toBe('');
    expect(await engine.call('echo ok', agent)).toBe('ok');
  });

  it('keeps what the command printed before the exec, with or without a line end', async () => {
    const agent = nextAgent();
    expect(await engine.call('echo before; exec bash', agent)).toBe('before');
    expect(await engine.call("printf 'no line end'; exec bash", agent)).toBe('no line end');
    // The prompt's invisible parts (`\[…\]`) take no column of the line.
    expect(
      await engine.call(
        "export PS1='\\[\\e[32m\\]me@\\h\\[\\e[0m\\]:\\w> '; printf kept; exec bash --norc",
        agent,
      ),
    ).toBe('kept');
    expect(await engine.call('echo ok', agent)).toBe('ok');
  });

  it('honours set -e in the new shell as in the old', async () => {
    const agent = nextAgent();
    expect(await engine.call('exec bash', agent)).toBe('');
    expect(await engine.call('set -e', agent)).toBe('');
    expect(await engine.call('cd /nonexistent-dir; echo DANGER', agent)).toBe(
      'bash: cd: /nonexistent-dir: No such file or directory\n[exit code: 1]',
    );
    expect(await engine.call('echo alive', agent)).toBe('alive');
  });

  it('leaves a bash that runs a script or a command string alone: it waits for input', async () => {
    const agent = nextAgent();
    expect(await engine.call('exec bash -c \'read v; echo "got $v"\'', agent)).toBe(
      '[waiting for input: bash]',
    );
    expect(await engine.call('hello', agent)).toBe(
      `got hello\n[shell exited: code 0]\n${RESET_LINE}`,
    );
    expect(await engine.call('echo back', agent)).toBe('back');
  });

  it("takes a person's exec bash too: the agent's next call runs, where it hung to its deadline", async () => {
    const agent = nextAgent();
    expect(await engine.call('export Y=exported; cd /tmp', agent)).toBe('');
    // Released as soon as the exec happened: the new bash may still be reading its start-up
    // files (a `.bashrc`'s command substitutions), not yet at its prompt.
    const shell = await personExecs(engine, agent, 'exec bash', (line) => line === 'bash\0');
    expect(await engine.call('echo "after $Y $PWD"', agent)).toBe(
      '[a human used this shell: exec bash]\nafter exported /tmp',
    );
    expect(await engine.call('false', agent)).toBe('[exit code: 1]');
    expect((await shell.snapshot()).data).not.toMatch(INTEGRATION_TRACES);
  });

  it("takes a person's exec bash when they let go before the shell read it", async () => {
    const agent = nextAgent();
    expect(await engine.call('export Y=exported; cd /tmp', agent)).toBe('');
    const shell = liveShellOf(engine, agent);
    const typist = { id: `typist-${agent}`, name: 'Tia', role: 'operator' } as const;
    for (let round = 0; round < 4; round++) {
      await shell.human.take(typist);
      const line = `exec bash # round ${round}`;
      shell.human.input(typist.id, `${line}\r`);
      // Let go as soon as the line shows: the old bash may not have read it yet (its next
      // call line then went to the new bash, without the integration, and hung).
      const shows = async () => expect(await shell.screenText()).toContain(line);
      await vi.waitFor(shows, { timeout: 10_000, interval: 5 });
      await shell.human.release(typist.id);
      expect(await engine.call(`echo "round-${round} $Y $PWD"`, agent)).toBe(
        `[a human used this shell: ${line}]\nround-${round} exported /tmp`,
      );
    }
  });

  it("types the agent's next call to a program a person exec'd, as one they left running", async () => {
    const agent = nextAgent();
    expect(await engine.call('echo ready', agent)).toBe('ready');
    const exec = 'exec bash --norc -c \'read -r line; echo "got $line"\'';
    await personExecs(engine, agent, exec, (line) => line.includes('-c\0'));
    expect(await engine.call('hello', agent)).toBe(
      '[a human used this shell: exec bash --norc -c \'read -r line; echo "got $line"\']\n' +
        `got hello\n[shell exited: code 0]\n${RESET_LINE}`,
    );
    expect(await engine.call('echo next', agent)).toBe('next');
  });

  it('shows viewers the new shell, never the integration it installs', async () => {
    const agent = nextAgent();
    expect(await engine.call('exec bash', agent)).toBe('');
    expect(await engine.call('echo viewed', agent)).toBe('viewed');
    const screen = (await liveShellOf(engine, agent).snapshot()).data;
    expect(screen).toContain('viewed');
    expect(screen).not.toMatch(INTEGRATION_TRACES);
  });
}

/** A service account's SHELL: `exec "$SHELL"` must still start a bash (it is the shell's). */
const env = { ...process.env, SHELL: '/usr/sbin/nologin' };

/**
 * Without a sandbox a fresh bash reads its HOME's `.bashrc`: the machine's own (root's here
 * runs `pyenv init`, seconds under load) would time the tests. This one is slow as many are:
 * command substitutions, each a process.
 */
const home = mkdtempSync(join(tmpdir(), 'jumpseat-test-home-'));
writeFileSync(join(home, '.bashrc'), 'RC_RAN=$(sleep 0.2; echo yes)\nRC_TOO=$(echo yes)\n');
afterAll(() => rmSync(home, { recursive: true, force: true }));

describe('exec bash in the sandbox', () => {
  engineCases(sharedEngine({ flags: ['--timeout-ms', '15000'], env }));
});

describe('exec bash without a sandbox', () => {
  const flags = ['--timeout-ms', '15000', '--sandbox', 'off'];
  engineCases(sharedEngine({ flags, env: { ...env, HOME: home } }));
});
