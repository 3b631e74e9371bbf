/**
 * Supervision that a command cannot forge (issue 21, item 6): an agent that reads its nonces
 * from its own shell and prints a well-formed end mark (and prompt marks) with exit 0 while it
 * keeps running in the foreground never turns its call into a finished, successful one, and
 * the shell never shows `idle` while that command runs. Attacked through the tool alone, in
 * the sandbox and without one.
 */
import { afterAll, describe, expect, it } from 'vitest';
import type { SessionInfo } from '../../shared/src/api.ts';
import { startServer, type TestServer } from './support/http-server.ts';
import { SANDBOX_WORKS } from './support/sandbox-check.ts';

/** Finds this shell's nonce and its call's nonce in the integration's variables. */
const READ_NONCES =
  'for __v in $(compgen -v | grep -E "^__js[0-9a-f]+_[nk]$"); do ' +
  'case $__v in *_n) __sn=${!__v};; *_k) __cn=${!__v};; esac; done';
/** A forged end mark, then the prompt's marks (the call's nonce, status 0), as post and PS1 print them. */
const FORGE =
  "printf '\\e]7717;%s;E;%s;0\\a\\e]7717;%s;A;%s;0;0\\a\\e]7717;%s;B;\\a' " +
  '"$__sn" "$__cn" "$__sn" "$__cn" "$__sn" >/dev/tty';
/** How long the command runs on after its forged end (s): long enough to be looked at. */
const RUN_ON_S = 3;

const setups = [{ sandbox: 'off' }, ...(SANDBOX_WORKS ? [{ sandbox: 'bwrap' }] : [])] as const;
if (!SANDBOX_WORKS) process.stdout.write('forged-end: the bwrap case is NOT RUN — no sandbox\n');

const servers: TestServer[] = [];
afterAll(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

async function stateOf(server: TestServer, agent: string): Promise<string | undefined> {
  const response = await server.request('/api/sessions', { token: server.adminToken });
  const sessions = (await response.json()) as SessionInfo[];
  return sessions.find((session) => session.agent === agent)?.state;
}

describe.each(setups)('sandbox $sandbox', ({ sandbox }) => {
  it.each([
    ['by a job it then runs', `${READ_NONCES}; ( ${FORGE}; sleep ${RUN_ON_S} )`],
    ['by the shell itself, just before a job', `${READ_NONCES}; ${FORGE}; sleep ${RUN_ON_S}`],
  ])(
    'a forged end mark printed %s ends nothing',
    async (_name, forged) => {
      const server = await startServer({ flags: ['--sandbox', sandbox] });
      servers.push(server);
      const agent = `forger-${sandbox}-${servers.length}`;
      const first = await server.post(`/api/agents/${agent}/bash`, { command: 'echo ready' });
      expect(await first.json()).toMatchObject({ output: 'ready' });

      const started = Date.now();
      const reply = server.post(`/api/agents/${agent}/bash`, {
        command: `${forged}; echo real-end`,
      });
      let settled = false;
      const states = new Set<string>();
      void reply.then(() => {
        settled = true;
      });
      // Bounded: looked at until the command would have ended on its own.
      while (Date.now() - started < RUN_ON_S * 1000 - 500) {
        await new Promise((resolve) => setTimeout(resolve, 100));
        if (Date.now() - started < 500) continue; // the forged marks are printed at once
        states.add(String(await stateOf(server, agent)));
      }
      const result = (await (await reply).json()) as { output: string };
      // Either the call ran on to its real end, or (the shell printed the marks itself just
      // before its job took the terminal) it was cut at the forged marks but the shell was
      // shown running, never idle, while that job ran.
      if (result.output.includes('real-end')) {
        expect(result.output).toMatch(/real-end$/);
      } else {
        expect(settled).toBe(true);
      }
      expect([...states]).not.toContain('idle');
      expect(states.size).toBeGreaterThan(0);
    },
    60_000,
  );
});

describe('what a command prints after a forged end mark', () => {
  it('is in its partial output when the deadline ends the call while its job runs', async () => {
    const server = await startServer({ flags: ['--sandbox', 'off', '--timeout-ms', '5000'] });
    servers.push(server);
    const agent = 'forger-deadline';
    const first = await server.post(`/api/agents/${agent}/bash`, { command: 'echo ready' });
    expect(await first.json()).toMatchObject({ output: 'ready' });
    const reply = await server.post(`/api/agents/${agent}/bash`, {
      command: `${READ_NONCES}; ( ${FORGE}; echo after-forge; sleep 60 )`,
    });
    const { output } = (await reply.json()) as { output: string };
    expect(output).toContain('Your command timed out after 5 seconds');
    expect(output).toContain('after-forge\n');
  }, 60_000);
});
