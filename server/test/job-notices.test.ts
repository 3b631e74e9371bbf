/**
 * A background job's notice belongs to the call in which the job ended (issue 22): bash prints
 * it only at its next prompt, once it has handled the job's SIGCHLD, so a job killed at the end
 * of a call used to have its notice shown between calls (seen by no call) or in the middle of
 * the next call's output, most often under load. Texts are exact.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEngine, type TestEngine } from './support/engine.ts';

let engine: TestEngine;

beforeAll(() => {
  engine = startEngine({ flags: ['--timeout-ms', '20000'] });
});
afterAll(async () => {
  await engine.close();
});

/** Rounds of kill-at-the-end: the race showed in about one call in two on a busy machine. */
const ROUNDS = 12;
/** Rounds of a kill as the job starts: the fork's window was hit in about one call in 60. */
const STARTING_ROUNDS = 150;
/** The pause after a 0.2 s job before the next call: ample for it to have ended. */
const BETWEEN_CALLS_MS = 3000;

describe('job notices', () => {
  it(
    'come in the call that killed the job, and never in the next one',
    async () => {
      const agent = 'jobs-killed';
      for (let round = 0; round < ROUNDS; round++) {
        expect(await engine.call('sleep 30 &', agent)).toBe('');
        expect(await engine.call('kill %1', agent)).toBe('[1]+  Terminated              sleep 30');
        expect(await engine.call('echo next; /bin/true; echo after', agent)).toBe('next\nafter');
      }
    },
    ROUNDS * 10_000,
  );

  it(
    'of a job killed as it starts, while bash still blocks the signal in its copy, come in that call',
    async () => {
      // `kill` right after `&` often finds the job still a copy of bash inside its fork, with
      // TERM blocked and pending: it dies the moment bash unblocks it.
      const agent = 'jobs-starting';
      for (let round = 0; round < STARTING_ROUNDS; round++) {
        expect(await engine.call('sleep 30 & kill %1', agent)).toBe(
          '[1]+  Terminated              sleep 30',
        );
      }
    },
    STARTING_ROUNDS * 10_000,
  );

  it('of a job that ended between calls come at the end of the next call, as at a terminal', async () => {
    const agent = 'jobs-between';
    expect(await engine.call('sleep 0.2 &', agent)).toBe('');
    // Long past the job's end, even on a busy machine (bash, at its prompt, says nothing yet).
    await new Promise((resolve) => setTimeout(resolve, BETWEEN_CALLS_MS));
    expect(await engine.call('echo hi', agent)).toBe('hi\n[1]+  Done                    sleep 0.2');
    expect(await engine.call('echo again', agent)).toBe('again');
  });

  it('of a job that ended while the call waited for it come once, in that call', async () => {
    const agent = 'jobs-waited';
    expect(await engine.call('sleep 0.1 & sleep 0.5; echo waited', agent)).toMatch(
      /^(\[1\]\+ +Done +sleep 0\.1\nwaited|waited\n\[1\]\+ +Done +sleep 0\.1)$/,
    );
    expect(await engine.call('echo clean', agent)).toBe('clean');
  });

  it('a job that ignores the kill is never waited for: the call ends at once', async () => {
    const agent = 'jobs-ignoring';
    // The job says when its trap is set: a kill sent before that would end it (under load
    // the job can take a while to get there).
    expect(
      await engine.call('rm -f .trap-set; sh -c \'trap "" TERM; : >.trap-set; sleep 30\' &', agent),
    ).toBe('');
    expect(
      await engine.call('until [ -e .trap-set ]; do sleep 0.05; done; echo trap set', agent),
    ).toBe('trap set');
    expect(await engine.call('kill %1; echo sent', agent)).toBe('sent');
    expect(await engine.call('jobs', agent)).toMatch(/^\[1\]\+ +Running +sh -c/);
    expect(await engine.call('kill -9 %1', agent)).toBe(
      '[1]+  Killed                  sh -c \'trap "" TERM; : >.trap-set; sleep 30\'',
    );
  });

  it('are settled by the integration whatever the command named like its words', async () => {
    // post settles jobs (while one runs) with text parsed at that moment: functions named like
    // the builtins it uses, and aliases named like reserved words made in the same call, must
    // not reach it (a `read` of the command's own would loop for ever).
    const agent = 'jobs-hostile-names';
    expect(
      await engine.call(
        'continue() { echo HIJACKED; }; jobs() { echo HIJACKED; }; wait() { echo HIJACKED; }; ' +
          'read() { echo HIJACKED; }; sleep 30 &',
        agent,
      ),
    ).toBe('');
    expect(
      await engine.call("alias while='echo HIJACKED;' do=: if=: '[['=false; echo made", agent),
    ).toBe('made');
    expect(await engine.call('kill %1', agent)).toBe('[1]+  Terminated              sleep 30');
    expect(await engine.call('echo after', agent)).toBe('after');
  });
});
