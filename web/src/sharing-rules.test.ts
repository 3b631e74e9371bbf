import { describe, expect, it } from 'vitest';
import type { SessionInfo, WhoAmI } from '../../shared/src/api.ts';
import { controlText, expiryLabel, managesShell } from './sharing-rules.ts';

function shell(patch: Partial<SessionInfo> = {}): SessionInfo {
  return {
    id: 's1',
    agent: null,
    owner: 'Ann',
    ownerId: 't-ann',
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

function who(patch: Partial<WhoAmI> = {}): WhoAmI {
  return {
    id: 't-ann',
    name: 'Ann',
    role: 'operator',
    named: true,
    scope: null,
    canControl: true,
    ...patch,
  };
}

describe('managesShell', () => {
  it('lets the person who opened a shell manage it', () => {
    expect(managesShell(who(), shell())).toBe(true);
  });

  it('lets the admin manage any shell, an agent’s too', () => {
    expect(
      managesShell(who({ name: 'admin', role: 'admin' }), shell({ agent: 'a1', owner: null })),
    ).toBe(true);
  });

  it('refuses another operator, and a share link’s holder even with the owner’s name', () => {
    expect(managesShell(who({ id: 't-bob', name: 'Bob' }), shell())).toBe(false);
    // Another token with the same name is someone else.
    expect(managesShell(who({ id: 't-ann-2' }), shell())).toBe(false);
    expect(managesShell(who({ scope: 's1' }), shell())).toBe(false);
    expect(managesShell(null, shell())).toBe(false);
  });
});

describe('controlText', () => {
  const bob = { id: 'v2', name: 'Bob', role: 'operator' };

  it('names the controller', () => {
    expect(controlText(false, bob, true, shell())).toBe('Bob has control');
    expect(controlText(true, bob, true, shell())).toBe('You have control — type in the terminal');
  });

  it('says nobody types in a person’s shell and the agent has its own', () => {
    expect(controlText(false, null, true, shell())).toBe('Nobody is typing');
    expect(controlText(false, null, false, shell({ agent: 'a1' }))).toBe(
      'The agent has the shell · you are watching',
    );
  });
});

describe('expiryLabel', () => {
  const now = new Date('2026-11-30T10:00:00.000Z');

  it('reads no expiry, expired, or until when', () => {
    expect(expiryLabel({ expiresAt: null }, now)).toBe('no expiry');
    expect(expiryLabel({ expiresAt: '2026-11-30T09:59:59.000Z' }, now)).toBe('expired');
    expect(expiryLabel({ expiresAt: '2026-11-30T10:30:00.000Z' }, now)).toMatch(/^until \S/);
  });
});
