/**
 * pwsh survives an interrupt (issue 22): PowerShell 7's own break handler (`ConsoleHost.
 * HandleBreak`) threw `ObjectDisposedException` and ended the shell when a SIGINT came as a
 * pipeline finished, which a loaded machine makes likely. Each round interrupts a call at a
 * different moment, through the same path as the page's button: right as it starts, while a
 * cmdlet or a native program runs, and right as the command ends. Every round must answer
 * exactly, and the shell, with a variable set before the first round, must live on.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { liveShellOf, type TestEngine } from './support/engine.ts';
import { PWSH, startPwshEngine } from './support/pwsh.ts';

/** Rounds; the moment of the interrupt moves through the call's life from one to the next. */
const ROUNDS = Number(process.env.PWSH_INTERRUPT_ROUNDS ?? 30);
/** How long the "ends right now" commands run: the interrupt is sent about then. */
const SHORT_MS = 150;
/** A lost interrupt shows as the timeout text long before the command's 30 s. */
const CALL_TIMEOUT_MS = 20_000;
const HUMAN = '[a human used this shell: interrupted the running command]';
/** How an interrupted call ends: stopped, or (still open under load) seen as waiting. */
const STOPPED_ENDING = /\n\[(exit code: 130|waiting for input: pwsh)\]$/;
const viewer = { id: 'viewer-1', name: 'Ida', role: 'operator' };

/** What each round runs, and how long after `running` it is interrupted. */
interface Round {
  readonly command: string;
  readonly delayMs: number;
  /** The command may end before the interrupt: it then answers as it ends. */
  readonly endsAround?: string;
}

function roundOf(index: number): Round {
  const late = (index * 7) % 40;
  switch (index % 5) {
    case 0:
      return { command: 'Start-Sleep 30', delayMs: index % 3 };
    case 1:
      return { command: 'sleep 30', delayMs: index % 3 };
    case 2:
      return { command: 'Start-Sleep 30', delayMs: 20 + late };
    case 3:
      return { command: 'sleep 30; "after"', delayMs: 20 + late };
    default: {
      const native = index % 2 === 0;
      return {
        command: native ? `sleep ${SHORT_MS / 1000}` : `Start-Sleep -Milliseconds ${SHORT_MS}`,
        delayMs: SHORT_MS - 20 + late,
        endsAround: HUMAN,
      };
    }
  }
}

let engine: TestEngine;

describe.skipIf(PWSH === null)('an interrupt of a pwsh call', () => {
  beforeAll(() => {
    engine = startPwshEngine({ flags: ['--timeout-ms', String(CALL_TIMEOUT_MS)] });
  });
  afterAll(async () => {
    await engine.close();
  });

  it(
    `stops the command with [exit code: 130] and pwsh lives on (${ROUNDS} rounds)`,
    async () => {
      const agent = 'pwsh-interrupt';
      expect(await engine.call('$Kept = "kept"; $PID', agent)).toMatch(/^\d+$/);
      const pid = await engine.call('$PID', agent);
      const shell = liveShellOf(engine, agent);
      const answers: string[] = [];
      for (let round = 0; round < ROUNDS; round++) {
        const { command, delayMs, endsAround } = roundOf(round);
        const call = engine.call(command, agent);
        while (shell.state !== 'running') await new Promise((resolve) => setImmediate(resolve));
        if (delayMs > 0) await new Promise((resolve) => setTimeout(resolve, delayMs));
        const taken = await shell.human.interrupt(viewer);
        const answer = await call;
        answers.push(`${round} ${command} +${delayMs}ms: ${JSON.stringify(answer)}`);
        // An interrupt sent as the call ended is told at the start of the next result.
        const told = taken && !answer.startsWith(HUMAN);
        const state = await engine.call('"$Kept $PID"', agent);
        answers.push(`${round} state: ${JSON.stringify(state)}`);
        // Pinned: the command is stopped (never the timeout's text, never what follows it in
        // the line) with [exit code: 130], pwsh lives on (the same $PID) and keeps its state.
        // A stop that landed while pwsh loaded Start-Sleep's module said [exit code: 1]; a
        // false waiting under load is still open (docs/engine.md), so it is allowed, not more.
        expect.soft(answer, answers.join('\n')).not.toContain('after');
        expect.soft(answer, answers.join('\n')).not.toContain('timed out');
        if (endsAround === undefined) {
          expect.soft(taken, answers.join('\n')).toBe(true);
          expect.soft(answer.startsWith(HUMAN), answers.join('\n')).toBe(true);
          expect.soft(answer, answers.join('\n')).toMatch(STOPPED_ENDING);
        }
        const kept = `${told ? `${HUMAN}\n` : ''}kept ${pid}`;
        // A break that came as the command ended may stop the next pipeline, after its output
        // or before it (docs/engine.md, "Still open").
        const allowed = [
          kept,
          `${kept}\n[exit code: 130]`,
          `${told ? `${HUMAN}\n` : ''}[exit code: 130]`,
        ];
        expect(allowed, answers.join('\n')).toContain(state);
      }
    },
    ROUNDS * 5_000 + 20_000,
  );
});
