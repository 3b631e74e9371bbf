/**
 * What a share link is (a token that reaches one shell, as a `viewer` or `operator`, named by
 * its holder): the grant it is made from, the record it is kept as, what its holder is told
 * once it ended, and how long an ended one is kept.
 */
import { randomUUID } from 'node:crypto';
import type { EndedLink } from './kept-tokens.ts';
import type { TokenRecord } from './token-file.ts';
import { sha256 } from './token-record.ts';

/** What a share link's holder is told once it stopped working. */
export const ENDED_LINK_MESSAGES: Record<EndedLink, string> = {
  revoked: 'this share link was revoked; ask the person who shared the shell for a new one',
  expired: 'this share link expired; ask the person who shared the shell for a new one',
  token_revoked: 'this token was revoked; ask the admin for a new one',
};

/**
 * Revoked and expired links are kept this long (to tell their holder what happened, instead
 * of "not valid"), then dropped as new links are made.
 */
export const ENDED_LINKS_KEPT_MS = 30 * 24 * 3600 * 1000;

/** A share link's holder is shown as this until they give their name. */
export const UNNAMED_SHARE_NAME = 'guest';

export interface ShareGrant {
  readonly sessionId: string;
  readonly role: 'viewer' | 'operator';
  /** Omitted: the link works until revoked. */
  readonly expiresInSeconds?: number;
  /** The display name of whoever creates the link. */
  readonly by: string;
}

/** The record a new share link is kept as (its token's hash only). */
export function shareRecord(grant: ShareGrant, token: string, now: number): TokenRecord {
  return {
    id: randomUUID(),
    sha256: sha256(token).toString('hex'),
    role: grant.role,
    name: UNNAMED_SHARE_NAME,
    createdAt: new Date(now).toISOString(),
    scope: grant.sessionId,
    ...(grant.expiresInSeconds === undefined
      ? {}
      : { expiresAt: new Date(now + grant.expiresInSeconds * 1000).toISOString() }),
    named: false,
    createdBy: grant.by,
  };
}
