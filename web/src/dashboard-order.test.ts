import { describe, expect, it } from 'vitest';
import type { SessionInfo } from '../../shared/src/api.ts';
import {
  arrange,
  type DashboardView,
  DEFAULT_VIEW,
  matchesFilter,
  stateCounts,
} from './dashboard-order.ts';

const shell = (id: string, change: Partial<SessionInfo>): SessionInfo => ({
  id,
  agent: id,
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
  startedAt: '2026-01-01T00:00:00.000Z',
  endedAt: null,
  ending: null,
  ...change,
});

const list = [
  shell('agent-10', {}),
  shell('agent-2', { state: 'running', command: 'npm test', since: '2026-01-01T00:00:01Z' }),
  shell('agent-3', { state: 'waiting_input', command: 'read x' }),
  shell('agent-1', { state: 'waiting_input', command: 'python3' }),
  shell('mine', { agent: null, owner: 'Ann', lastExitCode: 2 }),
];
/** agent-1 has waited long enough; agent-3 not yet. */
const needs = (session: SessionInfo): boolean => session.id === 'agent-1';
const ids = (view = DEFAULT_VIEW) =>
  arrange(list, view, needs).flatMap((group) => group.sessions.map((session) => session.id));

describe('arrange', () => {
  it('puts the shells needing a human, then running ones, first', () => {
    expect(ids()).toEqual(['agent-1', 'agent-2', 'agent-3', 'agent-10', 'mine']);
  });

  it('sorts by a column, numbers in names as people count them, either way', () => {
    const view = { ...DEFAULT_VIEW, sort: 'owner' as const };
    expect(ids(view)).toEqual(['agent-1', 'agent-2', 'agent-3', 'agent-10', 'mine']);
    expect(ids({ ...view, direction: 'descending' })).toEqual([
      'mine',
      'agent-10',
      'agent-3',
      'agent-2',
      'agent-1',
    ]);
  });

  it('filters on every word: agent, owner, command, state', () => {
    expect(ids({ ...DEFAULT_VIEW, filter: 'ann' })).toEqual(['mine']);
    expect(ids({ ...DEFAULT_VIEW, filter: 'NPM test' })).toEqual(['agent-2']);
    expect(ids({ ...DEFAULT_VIEW, filter: 'needs a human' })).toEqual(['agent-1']);
    expect(ids({ ...DEFAULT_VIEW, filter: 'waiting python' })).toEqual(['agent-1']);
    expect(matchesFilter(list[0] as SessionInfo, '', false)).toBe(true);
  });

  it('narrows to one state count, and groups by owner in the order of their first shell', () => {
    expect(ids({ ...DEFAULT_VIEW, onlyState: 'waiting_input' })).toEqual(['agent-3']);
    const groups = arrange(list, { ...DEFAULT_VIEW, group: 'owner' }, needs);
    expect(groups.map((group) => [group.label, group.sessions.length])).toEqual([
      ['Agents’ shells', 4],
      ['Ann', 1],
    ]);
  });

  it('counts needing a human apart from waiting', () => {
    expect(Object.fromEntries(stateCounts(list, needs))).toEqual({
      idle: 2,
      running: 1,
      waiting_input: 1,
      needs_human: 1,
    });
  });
});

describe('the host filter term and column', () => {
  const spread = [
    shell('on-gpu-1', { host: 'gpu-1' }),
    shell('on-gpu-10', { host: 'gpu-10' }),
    shell('on-cpu', { host: 'cpu', state: 'running', command: 'make' }),
    shell('local', {}),
  ];
  const shown = (filter: string, sort: DashboardView['sort'] = 'owner') =>
    arrange(spread, { ...DEFAULT_VIEW, filter, sort }, () => false).flatMap((group) =>
      group.sessions.map((session) => session.id),
    );

  it('host:NAME keeps the shells on that host only, its name whole and in any case', () => {
    expect(shown('host:gpu-1')).toEqual(['on-gpu-1']);
    expect(shown('HOST:GPU-10')).toEqual(['on-gpu-10']);
    expect(shown('host:gpu')).toEqual([]);
    expect(shown('host:nowhere')).toEqual([]);
  });

  it('host:NAME goes with other words, each of which must match too', () => {
    expect(shown('host:cpu make')).toEqual(['on-cpu']);
    expect(shown('host:cpu idle')).toEqual([]);
  });

  it('a bare host: still being typed narrows nothing', () => {
    expect(shown('host:')).toEqual(['local', 'on-cpu', 'on-gpu-1', 'on-gpu-10']);
  });

  it('plain words find a host by part of its name, and the server’s own shells as this server', () => {
    expect(shown('gpu')).toEqual(['on-gpu-1', 'on-gpu-10']);
    expect(shown('this server')).toEqual(['local']);
  });

  it('sorts by host, the server’s own shells as "this server", numbers as people count', () => {
    expect(shown('', 'host')).toEqual(['on-cpu', 'on-gpu-1', 'on-gpu-10', 'local']);
  });
});
