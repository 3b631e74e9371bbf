/**
 * The tokens the server accepts: the admin token from configuration, and tokens minted for a
 * role, kept as SHA-256 hashes only (never a usable secret), in the tokens file or in
 * PostgreSQL (token-engine.ts). Every record is held in memory, so a token is checked without
 * I/O, also while the database is away; a change is kept by the engine before it takes effect.
 */
import { randomUUID } from 'node:crypto';
import type { ShareInfo, TokenInfo, TokenRequest } from '../../../shared/src/api.ts';
import type { PostgresDatabase } from '../database/postgres-database.ts';
import {
  JUMPSEAT_ERR_BAD_REQUEST,
  JUMPSEAT_ERR_FORBIDDEN,
  JUMPSEAT_ERR_NOT_FOUND,
  JumpseatError,
} from '../errors.ts';
import type { Disposable, Emitter } from '../pty/disposable.ts';
import { Emitter as EventEmitter } from '../pty/disposable.ts';
import type { AuthEvent } from './auth-events.ts';
import {
  applied,
  type EndedLink,
  endedReason,
  KeptTokens,
  type RevokedToken,
} from './kept-tokens.ts';
import type { Principal } from './principal.ts';
import { ENDED_LINKS_KEPT_MS, type ShareGrant, shareRecord } from './share-links.ts';
import { checkRequest, hostName, personName } from './token-checks.ts';
import type { TokenEngine, TokenPatch, TokenWrite } from './token-engine.ts';
import { loadTokenRecords, type TokenRecord } from './token-file.ts';
import { TokenFileEngine } from './token-file-engine.ts';
import { TokenPostgresEngine } from './token-postgres-engine.ts';
import {
  ADMIN_PRINCIPAL,
  defaultName,
  endedAt,
  known,
  sha256,
  shareInfo,
  tokenInfo,
} from './token-record.ts';
import { createTokenSecret, isWellFormedToken } from './token-secret.ts';

export type { EndedLink, RevokedToken } from './kept-tokens.ts';
export { ENDED_LINK_MESSAGES, type ShareGrant, UNNAMED_SHARE_NAME } from './share-links.ts';

export interface MintedToken {
  /** Shown once, to the admin who minted it; only its hash is kept. */
  readonly token: string;
  readonly principal: Principal;
}

/** What a presented token or token id is: a working principal, or why it stopped working. */
export type TokenCheck = { principal: Principal } | { ended: EndedLink } | undefined;

/** A token's last use is saved at most this often (a request is not a write). */
const LAST_USED_SAVE_MS = 60_000;

/** Addresses remembered per token for `new_address` events, before the oldest is forgotten. */
const MAX_ADDRESSES_PER_TOKEN = 64;

export class TokenStore {
  /** Mints, revocations, first uses from an address and refusals made here, for the audit. */
  readonly onAuthEvent = new EventEmitter<AuthEvent>();
  /** A revocation made here or heard from another replica (each once). */
  readonly onRevoke: Emitter<RevokedToken>;
  /** Addresses each token was used from since the server started. */
  readonly #seenFrom = new Map<string, Set<string>>();
  /** When each token was last used (ms since the epoch), since this server started. */
  readonly #lastUsed = new Map<string, number>();
  readonly #adminHash: Buffer;
  readonly #engine: TokenEngine;
  readonly #kept: KeptTokens;
  /** Changes run one at a time: each sees the records the one before left. */
  #changing: Promise<unknown> = Promise.resolve();
  #watching: Disposable | undefined;

  private constructor(adminToken: string, engine: TokenEngine, records: readonly TokenRecord[]) {
    this.#adminHash = sha256(adminToken);
    this.#engine = engine;
    this.#kept = new KeptTokens(records);
    this.onRevoke = this.#kept.onRevoke;
  }

  /** Loads the minted tokens kept in `dataDir`; throws ConfigError when the file is corrupt. */
  static open(dataDir: string, adminToken: string): TokenStore {
    return new TokenStore(adminToken, new TokenFileEngine(dataDir), loadTokenRecords(dataDir));
  }

  /** `--database`: the tokens every replica shares, loaded, then kept current as they change. */
  static async openShared(database: PostgresDatabase, adminToken: string): Promise<TokenStore> {
    const engine = new TokenPostgresEngine(database);
    const store = new TokenStore(adminToken, engine, []);
    // Listening first: nothing changed between the load and the first notification is missed.
    store.#watching = await engine.watch(
      (change) => store.#kept.put(change.id, change.record),
      (records) => store.#kept.replaceAll(records),
    );
    store.#kept.replaceAll(await engine.load());
    return store;
  }

  /** Each save of the tokens file: null when it was written, else why the disk refused it. */
  get onSave(): Emitter<unknown> {
    return this.#engine.onSave;
  }

  /** The principal a presented token stands for, or undefined for any unknown token. */
  verify(presented: string): Principal | undefined {
    const checked = this.check(presented);
    return checked !== undefined && 'principal' in checked ? checked.principal : undefined;
  }

  /**
   * What a presented token is, in one look: a working token's principal, or why a share
   * link's token stopped working; undefined for a token never known.
   */
  check(presented: string): TokenCheck {
    const found = this.#find(presented);
    if (found === undefined) return undefined;
    const why = found.record === undefined ? undefined : endedReason(found.record);
    return why === undefined ? { principal: found.principal } : { ended: why };
  }

  /**
   * `check`, and for a token unknown here, a look in the shared database: it may have been
   * minted on another replica a moment ago, before its notification arrived.
   */
  async checkFresh(presented: string): Promise<TokenCheck> {
    const checked = this.check(presented);
    if (checked !== undefined || !isWellFormedToken(presented)) return checked;
    const record = await this.#engine.lookup({ sha256: sha256(presented).toString('hex') });
    if (record === undefined) return undefined;
    this.#kept.put(record.id, record);
    return this.check(presented);
  }

  /**
   * What the token with this id is now: a browser credential and a live ticket stand for a
   * token by its id, so revoking the token ends them too.
   */
  checkId(tokenId: string): TokenCheck {
    if (tokenId === ADMIN_PRINCIPAL.tokenId) return { principal: ADMIN_PRINCIPAL };
    const found = this.#kept.byId(tokenId);
    if (found === undefined) return undefined;
    const why = endedReason(found.record);
    return why === undefined ? { principal: found.principal } : { ended: why };
  }

  /** `checkId`, looking in the shared database for a token minted elsewhere a moment ago. */
  async checkIdFresh(tokenId: string): Promise<TokenCheck> {
    const checked = this.checkId(tokenId);
    if (checked !== undefined) return checked;
    const record = await this.#engine.lookup({ id: tokenId });
    if (record === undefined) return undefined;
    this.#kept.put(record.id, record);
    return this.checkId(tokenId);
  }

  /** Why a presented token that no longer works stopped (a share link revoked or expired). */
  endedLink(presented: string): EndedLink | undefined {
    const checked = this.check(presented);
    return checked !== undefined && 'ended' in checked ? checked.ended : undefined;
  }

  /** A token that reaches one shell only, as a `viewer` or `operator`; its holder names it. */
  async mintShare(grant: ShareGrant): Promise<{ token: string; share: ShareInfo }> {
    const token = createTokenSecret();
    const now = Date.now();
    // Links that ended a while ago are dropped as new ones are made: the file stays small.
    const stale = this.#records.filter((r) => endedAt(r) + ENDED_LINKS_KEPT_MS <= now);
    if (stale.length > 0) await this.#commit({ kind: 'remove', ids: stale.map((r) => r.id) });
    const record = shareRecord(grant, token, now);
    await this.#commit({ kind: 'insert', record });
    this.onAuthEvent.fire({
      kind: 'minted',
      tokenId: record.id,
      name: record.name,
      role: record.role,
      scope: grant.sessionId,
      by: grant.by,
    });
    return { token, share: shareInfo(record) };
  }

  /** The share links of one shell that still work, oldest first. */
  shares(sessionId: string): ShareInfo[] {
    const now = Date.now();
    return this.#records
      .filter((record) => record.scope === sessionId && endedAt(record) > now)
      .map(shareInfo);
  }

  /** Revokes a share link of `sessionId`; 404 when it has no such link. */
  async revokeShare(sessionId: string, shareId: string, by: string): Promise<void> {
    const record = this.#records.find(
      (r) => r.id === shareId && r.scope === sessionId && r.revokedAt === undefined,
    );
    if (record === undefined || !(await this.#revoke(record, by))) {
      throw new JumpseatError(
        JUMPSEAT_ERR_NOT_FOUND,
        `no share link ${JSON.stringify(shareId)} on this shell`,
      );
    }
  }

  /**
   * Sets the display name of a minted token (a share link's holder naming themselves); the
   * principal returned for it from now on carries the new name. The admin's name is fixed.
   */
  async rename(tokenId: string, name: string): Promise<Principal> {
    const record = this.#records.find((r) => r.id === tokenId);
    if (record === undefined) {
      throw new JumpseatError(
        JUMPSEAT_ERR_FORBIDDEN,
        "the admin token's name is fixed; mint a token with a name instead",
      );
    }
    if (record.scope === undefined) {
      throw new JumpseatError(
        JUMPSEAT_ERR_FORBIDDEN,
        "a minted token's name is set by the admin (PATCH /api/tokens/:id); only a share link's holder names themselves",
      );
    }
    const checked = personName(name, this.#records, tokenId);
    await this.#engine.renames.take(tokenId);
    // Another person's name is allowed (two Bobs exist): a link holder is always shown as one.
    await this.#commitName(tokenId, { name: checked, named: true });
    this.onAuthEvent.fire({ kind: 'named', tokenId, name: checked });
    return (this.checkId(tokenId) as { principal: Principal }).principal;
  }

  /** The token id is a share link's (working or not): its holder named themselves. */
  isShareLink(tokenId: string): boolean {
    return this.#records.some((record) => record.id === tokenId && record.scope !== undefined);
  }

  /** Every minted token and share link (working or revoked), oldest first; never a secret. */
  list(): TokenInfo[] {
    return this.#records.map((record) => tokenInfo(record, this.#lastUsedOf(record)));
  }

  /** The admin renames a minted token (not a share link: its holder names themselves). */
  async renameToken(tokenId: string, name: string): Promise<TokenInfo> {
    const record = this.#recordOf(tokenId);
    if (record.scope !== undefined) {
      throw new JumpseatError(
        JUMPSEAT_ERR_BAD_REQUEST,
        "a share link's holder names themselves; revoke the link instead",
      );
    }
    if (record.role === 'host') {
      throw new JumpseatError(
        JUMPSEAT_ERR_BAD_REQUEST,
        "a host's name is bound to its token; mint a new host token instead",
      );
    }
    const checked = personName(name, this.#records, tokenId);
    await this.#engine.renames.take(tokenId);
    await this.#commitName(tokenId, { name: checked });
    this.onAuthEvent.fire({ kind: 'named', tokenId, name: checked });
    const now = this.#recordOf(tokenId);
    return tokenInfo(now, this.#lastUsedOf(now));
  }

  /** Revokes any minted token or share link; its holders are disconnected on every replica. */
  async revoke(tokenId: string, by: string): Promise<void> {
    const record = this.#recordOf(tokenId);
    if (record.revokedAt !== undefined || !(await this.#revoke(record, by))) {
      throw new JumpseatError(
        JUMPSEAT_ERR_NOT_FOUND,
        `token ${JSON.stringify(tokenId)} was already revoked`,
      );
    }
  }

  /** Reports a token's first use from an address (since this server started). */
  noteUse(principal: Principal, address: string): void {
    this.#noteLastUse(principal.tokenId);
    let seen = this.#seenFrom.get(principal.tokenId);
    if (seen === undefined) {
      seen = new Set();
      this.#seenFrom.set(principal.tokenId, seen);
    }
    if (seen.has(address)) return;
    if (seen.size >= MAX_ADDRESSES_PER_TOKEN) seen.clear();
    seen.add(address);
    this.onAuthEvent.fire({
      kind: 'new_address',
      tokenId: principal.tokenId,
      name: principal.name,
      address,
    });
  }

  /**
   * Creates a token for a role and keeps its hash; `agent` is required for role agent and
   * refused for the others (400).
   */
  async mint(request: TokenRequest, by = 'admin'): Promise<MintedToken> {
    checkRequest(request);
    const token = createTokenSecret();
    const record: TokenRecord = {
      id: randomUUID(),
      sha256: sha256(token).toString('hex'),
      role: request.role,
      ...(request.agent === undefined ? {} : { agent: request.agent }),
      name:
        request.role === 'host'
          ? hostName(request.name, this.#records)
          : request.name === undefined
            ? defaultName(request)
            : personName(request.name, this.#records),
      createdAt: new Date().toISOString(),
      ...(request.labels === undefined || Object.keys(request.labels).length === 0
        ? {}
        : { labels: { ...request.labels } }),
    };
    await this.#commit({ kind: 'insert', record });
    this.onAuthEvent.fire({
      kind: 'minted',
      tokenId: record.id,
      name: record.name,
      role: record.role,
      scope: null,
      by,
    });
    return { token, principal: known(record).principal };
  }

  /** Writes what waits to be saved, and stops hearing other replicas (the server is closing). */
  async flush(): Promise<void> {
    this.#watching?.dispose();
    await this.#changing.catch(() => undefined);
    await this.#engine.flush();
  }

  async #revoke(record: TokenRecord, by: string): Promise<boolean> {
    const fields = { revokedAt: new Date().toISOString(), revokedBy: by };
    const done = await this.#commit({ kind: 'patch', id: record.id, fields, unlessRevoked: true });
    if (!done) return false;
    this.onAuthEvent.fire({ kind: 'revoked', tokenId: record.id, name: record.name, by });
    return true;
  }

  async #commitName(id: string, fields: TokenPatch): Promise<void> {
    const write: TokenWrite = { kind: 'patch', id, fields };
    if (this.#engine.namesWait) {
      await this.#commit(write);
      return;
    }
    this.#kept.apply(write);
    this.#engine.commitSoon(write, () => this.#records);
  }

  /** Keeps when a token was last used; saved at most every LAST_USED_SAVE_MS. */
  #noteLastUse(tokenId: string): void {
    const now = Date.now();
    this.#lastUsed.set(tokenId, now);
    const record = this.#records.find((r) => r.id === tokenId);
    if (record === undefined) return;
    const saved = record.lastUsedAt === undefined ? 0 : Date.parse(record.lastUsedAt);
    if (now - saved < LAST_USED_SAVE_MS) return;
    // A full disk or an absent database must not refuse the request: kept in memory meanwhile.
    const write: TokenWrite = {
      kind: 'patch',
      id: tokenId,
      fields: { lastUsedAt: new Date(now).toISOString() },
    };
    this.#kept.apply(write);
    this.#engine.commitSoon(write, () => this.#records);
  }

  /** Keeps a change with the engine, then makes it take effect here; one change at a time. */
  #commit(write: TokenWrite): Promise<boolean> {
    const run = this.#changing.then(async () => {
      const after = applied(this.#records, write);
      const done = await this.#engine.commit(write, after);
      if (done) this.#kept.apply(write);
      return done;
    });
    this.#changing = run.catch(() => undefined);
    return run;
  }

  get #records(): readonly TokenRecord[] {
    return this.#kept.records;
  }

  #recordOf(tokenId: string): TokenRecord {
    const record = this.#records.find((r) => r.id === tokenId);
    if (record === undefined) {
      throw new JumpseatError(
        JUMPSEAT_ERR_NOT_FOUND,
        tokenId === ADMIN_PRINCIPAL.tokenId
          ? 'the admin token is configured, not minted: change it where it is configured'
          : `no token ${JSON.stringify(tokenId)}`,
      );
    }
    return record;
  }

  #lastUsedOf(record: TokenRecord): string | null {
    const used = this.#lastUsed.get(record.id);
    if (used !== undefined) return new Date(used).toISOString();
    return record.lastUsedAt ?? null;
  }

  /** The token a presented secret is, the admin's or a minted one, working or not. */
  #find(presented: string): { principal: Principal; record?: TokenRecord } | undefined {
    if (!isWellFormedToken(presented)) return undefined;
    const found = this.#kept.find(presented, this.#adminHash);
    return found === 'also' ? { principal: ADMIN_PRINCIPAL } : found;
  }
}
