/**
 * The minted tokens one server holds in memory, whichever engine keeps them: each record with
 * its hash and principal, a presented secret found by comparing against every hash, and a
 * change applied in place. Says once when a token became revoked, however it learned it.
 */
import { timingSafeEqual } from 'node:crypto';
import { Emitter } from '../pty/disposable.ts';
import type { Principal } from './principal.ts';
import type { TokenWrite } from './token-engine.ts';
import type { TokenRecord } from './token-file.ts';
import { endedAt, type KnownToken, known, sha256 } from './token-record.ts';

/** Why a share link's token no longer works. */
export type EndedLink = 'revoked' | 'expired' | 'token_revoked';

/** A token that stopped working here or on another replica: its holders are disconnected. */
export interface RevokedToken {
  readonly tokenId: string;
  readonly name: string;
  readonly by: string;
  readonly link: boolean;
}

export class KeptTokens {
  readonly onRevoke = new Emitter<RevokedToken>();
  readonly #records: TokenRecord[] = [];
  readonly #known: KnownToken[] = [];

  constructor(records: readonly TokenRecord[]) {
    this.#records.push(...records);
    this.#known.push(...records.map(known));
  }

  /** Oldest first. */
  get records(): readonly TokenRecord[] {
    return this.#records;
  }

  byId(id: string): { record: TokenRecord; principal: Principal } | undefined {
    const index = this.#records.findIndex((r) => r.id === id);
    const record = this.#records[index];
    const entry = this.#known[index];
    return record === undefined || entry === undefined
      ? undefined
      : { record, principal: entry.principal };
  }

  /**
   * The minted token a presented secret is, working or not. Compares against every hash
   * without stopping early (and against `alsoHash`, the admin's, first), so timing tells
   * nothing about which token (if any) matched; all hashes are 32 bytes, as timingSafeEqual needs.
   */
  find(
    presented: string,
    alsoHash: Buffer,
  ): { record: TokenRecord; principal: Principal } | 'also' | undefined {
    const digest = sha256(presented);
    let match: { record: TokenRecord; principal: Principal } | 'also' | undefined = timingSafeEqual(
      digest,
      alsoHash,
    )
      ? 'also'
      : undefined;
    this.#known.forEach((token, index) => {
      if (timingSafeEqual(digest, token.hash)) {
        match = { principal: token.principal, record: this.#records[index] as TokenRecord };
      }
    });
    return match;
  }

  apply(write: TokenWrite): void {
    if (write.kind === 'remove') {
      for (const id of write.ids) this.put(id, undefined);
    } else if (write.kind === 'insert') {
      this.put(write.record.id, write.record);
    } else {
      const found = this.byId(write.id);
      if (found !== undefined) this.put(write.id, { ...found.record, ...write.fields });
    }
  }

  /** Sets (or with undefined, drops) one record; fires onRevoke when it became revoked. */
  put(id: string, record: TokenRecord | undefined): void {
    const index = this.#records.findIndex((r) => r.id === id);
    const before = this.#records[index];
    if (record === undefined) {
      if (index === -1) return;
      this.#records.splice(index, 1);
      this.#known.splice(index, 1);
      return;
    }
    if (index === -1) {
      this.#records.push(record);
      this.#known.push(known(record));
    } else {
      this.#records.splice(index, 1, record);
      this.#known.splice(index, 1, known(record));
    }
    if (record.revokedAt !== undefined && before?.revokedAt === undefined) {
      this.onRevoke.fire({
        tokenId: id,
        name: record.name,
        by: record.revokedBy ?? 'admin',
        link: record.scope !== undefined,
      });
    }
  }

  /** Every record as kept now (changes may have been missed): drops the gone, sets the rest. */
  replaceAll(records: readonly TokenRecord[]): void {
    const kept = new Set(records.map((r) => r.id));
    for (const record of [...this.#records]) {
      if (!kept.has(record.id)) this.put(record.id, undefined);
    }
    for (const record of records) this.put(record.id, record);
  }
}

/** Why a token stopped working, or undefined while it works. */
export function endedReason(record: TokenRecord): EndedLink | undefined {
  if (record.revokedAt !== undefined) {
    return record.scope === undefined ? 'token_revoked' : 'revoked';
  }
  if (endedAt(record) <= Date.now()) return 'expired';
  return undefined;
}

/** The records as they are once `write` is applied (what a file engine writes). */
export function applied(records: readonly TokenRecord[], write: TokenWrite): TokenRecord[] {
  if (write.kind === 'insert') return [...records, write.record];
  if (write.kind === 'remove') return records.filter((r) => !write.ids.includes(r.id));
  return records.map((r) => (r.id === write.id ? { ...r, ...write.fields } : r));
}
