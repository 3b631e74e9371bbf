/**
 * What a kept token record means: the principal it stands for, when it stopped working, and
 * how it is listed. Pure functions over a record, shared by the store and both its engines.
 */
import { createHash } from 'node:crypto';
import type { ShareInfo, TokenInfo, TokenRequest } from '../../../shared/src/api.ts';
import type { Principal } from './principal.ts';
import type { TokenRecord } from './token-file.ts';

export interface KnownToken {
  readonly hash: Buffer;
  readonly principal: Principal;
}

export const ADMIN_PRINCIPAL: Principal = { role: 'admin', name: 'admin', tokenId: 'admin' };

/** When a token stopped working (revoked or expired); Infinity while it works. */
export function endedAt(record: TokenRecord): number {
  if (record.revokedAt !== undefined) return Date.parse(record.revokedAt);
  return record.expiresAt === undefined ? Number.POSITIVE_INFINITY : Date.parse(record.expiresAt);
}

export function shareInfo(record: TokenRecord): ShareInfo {
  return {
    id: record.id,
    sessionId: record.scope ?? '',
    role: record.role === 'operator' ? 'operator' : 'viewer',
    name: record.named === false ? null : record.name,
    createdBy: record.createdBy ?? 'admin',
    createdAt: record.createdAt,
    expiresAt: record.expiresAt ?? null,
  };
}

/** A record as the admin's list shows it; never a secret. */
export function tokenInfo(record: TokenRecord, lastUsedAt: string | null): TokenInfo {
  return {
    id: record.id,
    name: record.name,
    role: record.role,
    agent: record.agent ?? null,
    ...(record.labels === undefined ? {} : { labels: { ...record.labels } }),
    scope: record.scope ?? null,
    link: record.scope !== undefined,
    createdAt: record.createdAt,
    createdBy: record.createdBy ?? null,
    lastUsedAt,
    expiresAt: record.expiresAt ?? null,
    revokedAt: record.revokedAt ?? null,
  };
}

export function sha256(text: string): Buffer {
  return createHash('sha256').update(text, 'utf8').digest();
}

export function defaultName(request: TokenRequest): string {
  return request.agent === undefined ? request.role : `agent:${request.agent}`;
}

export function known(record: TokenRecord): KnownToken {
  const hash = Buffer.from(record.sha256, 'hex');
  const common = {
    name: record.name,
    tokenId: record.id,
    ...(record.scope === undefined ? {} : { scope: record.scope }),
    ...(record.expiresAt === undefined ? {} : { expiresAt: Date.parse(record.expiresAt) }),
    ...(record.named === false ? { unnamed: true as const } : {}),
  };
  if (record.role === 'agent') {
    return {
      hash,
      principal: {
        role: 'agent',
        agent: record.agent ?? '',
        ...common,
        ...(record.labels === undefined ? {} : { labels: record.labels }),
      },
    };
  }
  return { hash, principal: { role: record.role, ...common } };
}
