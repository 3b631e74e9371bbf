import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { ConfigError } from '../config/config-error.ts';
import { JumpseatError } from '../errors.ts';
import { TokenStore } from './token-store.ts';

// Counts comparisons while keeping the real implementation: the store must compare against
// every known hash, whichever one matches.
vi.mock('node:crypto', async (importOriginal) => {
  const actual = await importOriginal<typeof import('node:crypto')>();
  return { ...actual, timingSafeEqual: vi.fn(actual.timingSafeEqual) };
});
const { timingSafeEqual } = await import('node:crypto');

const ADMIN = 'admin-secret-token';
let dataDir: string;

beforeEach(() => {
  dataDir = mkdtempSync(join(tmpdir(), 'jumpseat-tokens-'));
});
afterEach(() => rmSync(dataDir, { recursive: true, force: true }));

function sha256Hex(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

describe('verify', () => {
  it('knows the admin token from configuration', () => {
    const store = TokenStore.open(dataDir, ADMIN);
    expect(store.verify(ADMIN)).toEqual({ role: 'admin', name: 'admin', tokenId: 'admin' });
  });

  it.each([
    ['a wrong token', 'admin-secret-tokeN'],
    ['a prefix of the token', 'admin-secret'],
    ['an empty string', ''],
    ['a token with a space', 'admin secret'],
    ['a non-ASCII token', 'admin-secret-tokén'],
    ['an oversized token', 'x'.repeat(5000)],
  ])('refuses %s', (_what, presented) => {
    expect(TokenStore.open(dataDir, ADMIN).verify(presented)).toBeUndefined();
  });

  it('compares against every known hash whichever token is presented', () => {
    const store = TokenStore.open(dataDir, ADMIN);
    const minted = ['a1', 'a2', 'a3'].map((agent) => store.mint({ role: 'agent', agent }).token);
    for (const presented of [ADMIN, minted[0] ?? '', minted[2] ?? '', 'js_unknown']) {
      vi.mocked(timingSafeEqual).mockClear();
      store.verify(presented);
      expect(vi.mocked(timingSafeEqual)).toHaveBeenCalledTimes(4);
    }
  });
});

describe('mint', () => {
  it('returns a js_ token of 32 random bytes for the role', () => {
    const store = TokenStore.open(dataDir, ADMIN);
    const { token, principal } = store.mint({ role: 'agent', agent: 'a1' });
    expect(token).toMatch(/^js_[A-Za-z0-9_-]{43}$/);
    expect(principal).toMatchObject({ role: 'agent', agent: 'a1', name: 'agent:a1' });
    expect(store.verify(token)).toEqual(principal);
  });

  it('names tokens by role unless a name is given', () => {
    const store = TokenStore.open(dataDir, ADMIN);
    expect(store.mint({ role: 'viewer' }).principal.name).toBe('viewer');
    expect(store.mint({ role: 'operator', name: 'Ana' }).principal.name).toBe('Ana');
  });

  it('mints different tokens every time', () => {
    const store = TokenStore.open(dataDir, ADMIN);
    const tokens = new Set(Array.from({ length: 20 }, () => store.mint({ role: 'viewer' }).token));
    expect(tokens.size).toBe(20);
  });

  it('requires an agent id for role agent', () => {
    const store = TokenStore.open(dataDir, ADMIN);
    expect(() => store.mint({ role: 'agent' })).toThrow(
      new JumpseatError(
        { code: 'BAD_REQUEST', status: 400 },
        'role "agent" requires "agent" (the agent id)',
      ),
    );
  });

  it('refuses an agent id for the other roles', () => {
    const store = TokenStore.open(dataDir, ADMIN);
    expect(() => store.mint({ role: 'operator', agent: 'a1' })).toThrow(
      '"agent" is only allowed with role "agent", not "operator"',
    );
  });
});

describe('persistence', () => {
  it('keeps minted tokens across restarts as SHA-256 hashes only, mode 600', () => {
    const first = TokenStore.open(dataDir, ADMIN);
    const { token, principal } = first.mint({ role: 'agent', agent: 'a1', name: 'ci' });
    const file = join(dataDir, 'tokens.json');
    const text = readFileSync(file, 'utf8');
    expect(text).not.toContain(token);
    expect(text).not.toContain(token.slice(3));
    expect(text).toContain(sha256Hex(token));
    expect(statSync(file).mode & 0o777).toBe(0o600);

    const second = TokenStore.open(dataDir, ADMIN);
    expect(second.verify(token)).toEqual(principal);
  });

  it('takes the admin token from configuration only, never from the file', () => {
    TokenStore.open(dataDir, ADMIN).mint({ role: 'viewer' });
    const restarted = TokenStore.open(dataDir, 'a-new-admin-token');
    expect(restarted.verify(ADMIN)).toBeUndefined();
    expect(restarted.verify('a-new-admin-token')?.role).toBe('admin');
  });

  it('refuses a tokens file that is not JSON', () => {
    writeFileSync(join(dataDir, 'tokens.json'), '{oops');
    expect(() => TokenStore.open(dataDir, ADMIN)).toThrow(ConfigError);
    expect(() => TokenStore.open(dataDir, ADMIN)).toThrow(
      `tokens file "${join(dataDir, 'tokens.json')}" is not valid JSON; fix or delete it`,
    );
  });

  it('refuses a tokens file whose agent token lost its agent', () => {
    const record = {
      id: 'x',
      sha256: sha256Hex('t'),
      role: 'agent',
      name: 'n',
      createdAt: '2025-01-01T00:00:00.000Z',
    };
    writeFileSync(join(dataDir, 'tokens.json'), JSON.stringify({ version: 1, tokens: [record] }));
    expect(() => TokenStore.open(dataDir, ADMIN)).toThrow('token x has a role/agent mismatch');
  });
});

describe('share links', () => {
  const grant = { sessionId: 's-1', role: 'viewer', by: 'Olive' } as const;

  it('reach one shell, unnamed until their holder gives a name', () => {
    const store = TokenStore.open(dataDir, ADMIN);
    const { token, share } = store.mintShare(grant);
    expect(share).toMatchObject({
      sessionId: 's-1',
      role: 'viewer',
      name: null,
      createdBy: 'Olive',
      expiresAt: null,
    });
    expect(store.verify(token)).toEqual({
      role: 'viewer',
      name: 'guest',
      tokenId: share.id,
      scope: 's-1',
      unnamed: true,
    });
    const renamed = store.rename(share.id, 'Vera');
    expect(renamed).toEqual({ role: 'viewer', name: 'Vera', tokenId: share.id, scope: 's-1' });
    // Names are saved lazily (a burst of renames is one write); flush is what closing does.
    store.flush();
    expect(TokenStore.open(dataDir, ADMIN).verify(token)).toEqual(renamed);
    expect(store.shares('s-1')).toEqual([{ ...share, name: 'Vera' }]);
    expect(store.shares('s-2')).toEqual([]);
  });

  it('stop working when they expire, and are dropped from the list', () => {
    vi.useFakeTimers({ now: Date.parse('2026-01-01T00:00:00Z'), toFake: ['Date'] });
    try {
      const store = TokenStore.open(dataDir, ADMIN);
      const { token, share } = store.mintShare({ ...grant, expiresInSeconds: 60 });
      expect(share.expiresAt).toBe('2026-01-01T00:01:00.000Z');
      expect(store.verify(token)?.expiresAt).toBe(Date.parse('2026-01-01T00:01:00Z'));
      vi.setSystemTime(Date.parse('2026-01-01T00:00:59Z'));
      expect(store.verify(token)).toBeDefined();
      vi.setSystemTime(Date.parse('2026-01-01T00:01:00Z'));
      expect(store.verify(token)).toBeUndefined();
      expect(store.endedLink(token)).toBe('expired');
      expect(store.shares('s-1')).toEqual([]);
      // Kept a month, to tell its holder what happened; then dropped as new links are made.
      store.mintShare(grant);
      expect(readFileSync(join(dataDir, 'tokens.json'), 'utf8')).toContain(share.id);
      vi.setSystemTime(Date.parse('2026-01-31T00:01:00Z'));
      store.mintShare(grant);
      expect(readFileSync(join(dataDir, 'tokens.json'), 'utf8')).not.toContain(share.id);
      expect(store.endedLink(token)).toBeUndefined();
    } finally {
      vi.useRealTimers();
    }
  });

  it('are revoked for good, and reported', () => {
    const store = TokenStore.open(dataDir, ADMIN);
    const events: string[] = [];
    store.onAuthEvent.on((event) => events.push(`${event.kind}:${'by' in event ? event.by : ''}`));
    const { token, share } = store.mintShare(grant);
    expect(() => store.revokeShare('s-2', share.id, 'Olive')).toThrow(
      `no share link "${share.id}" on this shell`,
    );
    store.revokeShare('s-1', share.id, 'Olive');
    expect(store.verify(token)).toBeUndefined();
    expect(store.endedLink(token)).toBe('revoked');
    expect(store.shares('s-1')).toEqual([]);
    const restarted = TokenStore.open(dataDir, ADMIN);
    expect(restarted.verify(token)).toBeUndefined();
    expect(restarted.endedLink(token)).toBe('revoked');
    expect(() => store.revokeShare('s-1', share.id, 'Olive')).toThrow('no share link');
    expect(events).toEqual(['minted:Olive', 'revoked:Olive']);
  });

  it("keeps the admin's name fixed", () => {
    expect(() => TokenStore.open(dataDir, ADMIN).rename('admin', 'Boss')).toThrow(
      "the admin token's name is fixed; mint a token with a name instead",
    );
  });
});
