import { describe, expect, it } from 'vitest';
import { canCallAgent, canMintTokens, canSupervise, type Principal } from './principal.ts';

const admin: Principal = { role: 'admin', name: 'admin', tokenId: 'admin' };
const operator: Principal = { role: 'operator', name: 'op', tokenId: 't1' };
const viewer: Principal = { role: 'viewer', name: 'v', tokenId: 't2' };
const agentA1: Principal = { role: 'agent', agent: 'a1', name: 'agent:a1', tokenId: 't3' };

describe('role checks', () => {
  it('lets the admin call any agent, an agent token only its own agent', () => {
    expect(canCallAgent(admin, 'a1')).toBe(true);
    expect(canCallAgent(admin, 'anyone')).toBe(true);
    expect(canCallAgent(agentA1, 'a1')).toBe(true);
    expect(canCallAgent(agentA1, 'a2')).toBe(false);
    expect(canCallAgent(agentA1, 'A1')).toBe(false);
    expect(canCallAgent(operator, 'a1')).toBe(false);
    expect(canCallAgent(viewer, 'a1')).toBe(false);
  });

  it('lets admin, operator and viewer supervise, never an agent', () => {
    expect([admin, operator, viewer, agentA1].map(canSupervise)).toEqual([true, true, true, false]);
  });

  it('lets only the admin mint tokens', () => {
    expect([admin, operator, viewer, agentA1].map(canMintTokens)).toEqual([
      true,
      false,
      false,
      false,
    ]);
  });
});
