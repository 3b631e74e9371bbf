/**
 * Who a request acts for, and what each role may do. Pure functions, so every route and the
 * live hub decide the same way from the same table (ARCHITECTURE.md, "Auth").
 */
import type { RoleName } from '../../../shared/src/api.ts';

export type Principal =
  | {
      readonly role: Exclude<RoleName, 'agent'>;
      readonly name: string;
      /** Which token authenticated: 'admin' for the configured admin token. */
      readonly tokenId: string;
    }
  | {
      readonly role: 'agent';
      readonly agent: string;
      readonly name: string;
      readonly tokenId: string;
    };

/** Tool calls: the admin for anyone, an agent token only for its own agent. */
export function canCallAgent(principal: Principal, agentId: string): boolean {
  return principal.role === 'admin' || (principal.role === 'agent' && principal.agent === agentId);
}

/** Reading shells and their calls (the dashboard and the supervisor API). */
export function canSupervise(principal: Principal): boolean {
  return principal.role === 'admin' || principal.role === 'operator' || principal.role === 'viewer';
}

export function canMintTokens(principal: Principal): boolean {
  return principal.role === 'admin';
}
