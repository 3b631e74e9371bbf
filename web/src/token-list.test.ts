import { describe, expect, it } from 'vitest';
import type { TokenInfo } from '../../shared/src/api.ts';
import { arrangeTokens, DEFAULT_TOKEN_VIEW, reachesOf, statusOf } from './token-list.ts';

function token(change: Partial<TokenInfo>): TokenInfo {
  return {
    id: 't',
    name: 'n',
    role: 'viewer',
    agent: null,
    scope: null,
    link: false,
    createdAt: '2026-12-01T10:00:00.000Z',
    createdBy: 'admin',
    lastUsedAt: null,
    expiresAt: null,
    revokedAt: null,
    ...change,
  } as TokenInfo;
}

const ann = token({ id: '1', name: 'Ann', role: 'viewer', createdAt: '2026-12-01T10:00:00.000Z' });
const bot = token({
  id: '2',
  name: 'bot',
  role: 'agent',
  agent: 'a1',
  createdAt: '2026-12-01T11:00:00.000Z',
});
const old = token({
  id: '3',
  name: 'Old',
  role: 'operator',
  revokedAt: '2026-12-01T12:00:00.000Z',
  createdAt: '2026-12-01T09:00:00.000Z',
});
const link = token({ id: '4', name: 'Guest', role: 'viewer', scope: 's-9', link: true });

describe('reachesOf', () => {
  it('says what each role and a share link reach', () => {
    expect(reachesOf(ann)).toBe('every shell: watch only');
    expect(reachesOf(bot)).toBe('tool calls in agent a1’s shells');
    expect(reachesOf({ ...bot, labels: { gpu: '1', zone: 'eu' } })).toBe(
      'tool calls in agent a1’s shells, on hosts with gpu=1 zone=eu',
    );
    expect(reachesOf(old)).toBe('every shell: watch, take over, open shells');
    expect(reachesOf(token({ role: 'admin' }))).toBe('everything: every shell, tokens, history');
    expect(reachesOf(link)).toBe('watch one shell (s-9)');
  });
});

describe('arrangeTokens', () => {
  const all = [ann, bot, old, link];
  it('shows the newest first by default, names apart ties', () => {
    expect(arrangeTokens(all, DEFAULT_TOKEN_VIEW).map((t) => t.id)).toEqual(['2', '1', '4', '3']);
  });
  it('searches every word in name, role, agent, reach and status', () => {
    const view = { ...DEFAULT_TOKEN_VIEW, search: 'agent A1' };
    expect(arrangeTokens(all, view).map((t) => t.name)).toEqual(['bot']);
    expect(
      arrangeTokens(all, { ...DEFAULT_TOKEN_VIEW, search: 'link' }).map((t) => t.name),
    ).toEqual(['Guest']);
  });
  it('narrows to a status and sorts by a column both ways', () => {
    expect(
      arrangeTokens(all, { ...DEFAULT_TOKEN_VIEW, status: 'revoked' }).map((t) => t.name),
    ).toEqual(['Old']);
    const byName = {
      ...DEFAULT_TOKEN_VIEW,
      sort: 'name' as const,
      direction: 'ascending' as const,
    };
    expect(arrangeTokens(all, byName).map((t) => t.name)).toEqual(['Ann', 'bot', 'Guest', 'Old']);
    expect(arrangeTokens(all, { ...byName, direction: 'descending' }).map((t) => t.name)).toEqual([
      'Old',
      'Guest',
      'bot',
      'Ann',
    ]);
    expect(statusOf(old)).toBe('revoked');
  });
});
