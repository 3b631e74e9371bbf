/**
 * Who a request acts for, and what each role may do. Pure functions, so every route and the
 * live hub decide the same way from the same table (ARCHITECTURE.md, "Auth").
 */
import type { RoleName, SessionInfo } from '../../../shared/src/api.ts';

/** What a share link adds to a viewer or operator token. */
interface ShareLimits {
  /** The one shell (session id) the token reaches; every other shell and route is 403. */
  readonly scope?: string;
  /** When the token stops working (ms since the epoch). */
  readonly expiresAt?: number;
  /** Set while the holder has not given their display name yet. */
  readonly unnamed?: true;
}

export type Principal =
  | ({
      readonly role: Exclude<RoleName, 'agent'>;
      readonly name: string;
      /** Which token authenticated: 'admin' for the configured admin token. */
      readonly tokenId: string;
    } & ShareLimits)
  | ({
      readonly role: 'agent';
      readonly agent: string;
      readonly name: string;
      readonly tokenId: string;
      /** Placement labels: this token's calls start shells only on hosts with all of them. */
      readonly labels?: Readonly<Record<string, string>>;
    } & ShareLimits);

/** A host token joins as a shell host and reaches nothing else (see auth-hook.ts). */
export function isHost(principal: Principal): boolean {
  return principal.role === 'host';
}

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

/** Taking the controls, typing, interrupting: admins and operators (scoped or not). */
export function canControl(principal: Principal): boolean {
  return principal.role === 'admin' || principal.role === 'operator';
}

/** Opening a shell of one's own: admins and unscoped operators. */
export function canOpenShells(principal: Principal): boolean {
  return principal.scope === undefined && canControl(principal);
}

/** The person's own shell (opened with this very token), or any shell for the admin. */
export function ownsShell(principal: Principal, ownerTokenId: string | undefined): boolean {
  return (
    principal.role === 'admin' ||
    (principal.scope === undefined &&
      ownerTokenId !== undefined &&
      principal.tokenId === ownerTokenId)
  );
}

/** What deciding who may see a shell needs to know of it. */
export interface ShellVisibility {
  readonly id: string;
  /** A person's own shell, not handed to an agent. */
  readonly personal: boolean;
  /** The token that opened it (a person's own shell). */
  readonly ownerTokenId: string | undefined;
}

/**
 * Who may see a shell at all (list it, watch it, read its calls and recording). An agent's
 * shell: everyone who may watch. A person's own shell is private: its owner, the admin, and
 * the holders of its share links only. A share link reaches its own shell and nothing else.
 */
export function canSeeShell(principal: Principal, shell: ShellVisibility): boolean {
  if (principal.scope !== undefined) return principal.scope === shell.id;
  if (!canSupervise(principal)) return false;
  if (!shell.personal) return true;
  return principal.role === 'admin' || principal.tokenId === shell.ownerTokenId;
}

/** `canSeeShell` for a shell as the API lists it. */
export function canSeeSession(principal: Principal, session: SessionInfo): boolean {
  return canSeeShell(principal, {
    id: session.id,
    personal: session.agent === null,
    ownerTokenId: session.ownerId,
  });
}
