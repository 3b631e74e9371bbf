import { describe, expect, it } from 'vitest';
import type { SessionInfo } from '../../shared/src/api.ts';
import { successorOf } from './successor-shell.ts';

function shell(id: string, patch: Partial<SessionInfo> = {}): SessionInfo {
  return {
    id,
    agent: 'a1',
    owner: null,
    dialect: 'bash',
    state: 'idle',
    command: null,
    since: null,
    lastExitCode: null,
    pid: 1,
    cols: 120,
    rows: 40,
    controller: null,
    viewers: 0,
    startedAt: '2026-11-30T10:00:00.000Z',
    endedAt: null,
    ending: null,
    ...patch,
  };
}

describe('successorOf', () => {
  const ended = shell('old', { state: 'exited' });

  it("finds the agent's newest live shell of the same dialect", () => {
    const sessions = [
      ended,
      shell('other-agent', { agent: 'a2' }),
      shell('pwsh', { dialect: 'pwsh' }),
      shell('new', { startedAt: '2026-11-30T10:05:00.000Z' }),
    ];
    expect(successorOf(ended, sessions)?.id).toBe('new');
  });

  it('finds none while the agent has not started another', () => {
    expect(successorOf(ended, [ended, shell('gone', { state: 'exited' })])).toBeUndefined();
  });
});
