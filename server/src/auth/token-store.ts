/**
 * The tokens the server accepts: the admin token from configuration, and tokens minted for a
 * role, kept across restarts as SHA-256 hashes only, so the file never holds a usable secret.
 */
import { createHash, randomUUID, timingSafeEqual } from 'node:crypto';
import type { ShareInfo, TokenInfo, TokenRequest } from '../../../shared/src/api.ts';
import { labelsProblem } from '../../../shared/src/labels.ts';
import { lookAlikeOf } from '../../../shared/src/name-skeleton.ts';
import { checkDisplayName } from '../../../shared/src/names.ts';
import { HOST_NAME_REGEX } from '../../../shared/src/vocabulary.ts';
import {
  JUMPSEAT_ERR_BAD_REQUEST,
  JUMPSEAT_ERR_FORBIDDEN,
  JUMPSEAT_ERR_NOT_FOUND,
  JUMPSEAT_ERR_STORAGE_UNAVAILABLE,
  JumpseatError,
} from '../errors.ts';
import { storageErrorCode } from '../ops/storage-health.ts';
import { Emitter } from '../pty/disposable.ts';
import type { AuthEvent } from './auth-events.ts';
import type { Principal } from './principal.ts';
import { RenameLimit } from './rename-limit.ts';
import { loadTokenRecords, saveTokenRecords, type TokenRecord } from './token-file.ts';
import { createTokenSecret, isWellFormedToken } from './token-secret.ts';

/** Why a share link's token no longer works. */
export type EndedLink = 'revoked' | 'expired' | 'token_revoked';

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
const ENDED_LINKS_KEPT_MS = 30 * 24 * 3600 * 1000;

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

export interface MintedToken {
  /** Shown once, to the admin who minted it; only its hash is kept. */
  readonly token: string;
  readonly principal: Principal;
}

interface KnownToken {
  readonly hash: Buffer;
  readonly principal: Principal;
}

const ADMIN_PRINCIPAL: Principal = { role: 'admin', name: 'admin', tokenId: 'admin' };

/** A token's last use is saved to the file at most this often (a request is not a write). */
const LAST_USED_SAVE_MS = 60_000;

/**
 * Names and last uses are saved this long after they change, together: a burst of renames is
 * one write of the file. Mints and revocations are saved before they take effect.
 */
const LAZY_SAVE_MS = 1000;
/** A lazy save the disk refused is tried again this often. */
const SAVE_RETRY_MS = 5000;

/** Addresses remembered per token for `new_address` events, before the oldest is forgotten. */
const MAX_ADDRESSES_PER_TOKEN = 64;

export class TokenStore {
  /** Mints, revocations, first uses from an address and refusals, for the audit trail. */
  readonly onAuthEvent = new Emitter<AuthEvent>();
  /** Each save of the tokens file: null when it was written, else why the disk refused it. */
  readonly onSave = new Emitter<unknown>();
  readonly #renames = new RenameLimit();
  /** Changes kept in memory and not yet in the file (see LAZY_SAVE_MS). */
  #saveTimer: NodeJS.Timeout | undefined;
  /** Addresses each token was used from since the server started. */
  readonly #seenFrom = new Map<string, Set<string>>();
  /** When each token was last used (ms since the epoch), since this server started. */
  readonly #lastUsed = new Map<string, number>();
  readonly #adminHash: Buffer;
  readonly #dataDir: string;
  readonly #records: TokenRecord[];
  readonly #known: KnownToken[];

  private constructor(dataDir: string, adminToken: string, records: TokenRecord[]) {
    this.#dataDir = dataDir;
    this.#adminHash = sha256(adminToken);
    this.#records = records;
    this.#known = records.map(known);
  }

  /** Loads the minted tokens kept in `dataDir`; throws ConfigError when the file is corrupt. */
  static open(dataDir: string, adminToken: string): TokenStore {
    return new TokenStore(dataDir, adminToken, loadTokenRecords(dataDir));
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
  check(presented: string): { principal: Principal } | { ended: EndedLink } | undefined {
    const found = this.#find(presented);
    if (found === undefined) return undefined;
    const ended = this.#ended(found);
    return ended === undefined ? { principal: found.principal } : { ended };
  }

  /**
   * What the token with this id is now: a browser credential and a live ticket stand for a
   * token by its id, so revoking the token ends them too.
   */
  checkId(tokenId: string): { principal: Principal } | { ended: EndedLink } | undefined {
    if (tokenId === ADMIN_PRINCIPAL.tokenId) return { principal: ADMIN_PRINCIPAL };
    const index = this.#records.findIndex((record) => record.id === tokenId);
    const record = this.#records[index];
    const entry = this.#known[index];
    if (record === undefined || entry === undefined) return undefined;
    const ended = this.#ended({ record });
    return ended === undefined ? { principal: entry.principal } : { ended };
  }

  /** Why a presented token that no longer works stopped (a share link revoked or expired). */
  endedLink(presented: string): EndedLink | undefined {
    const checked = this.check(presented);
    return checked !== undefined && 'ended' in checked ? checked.ended : undefined;
  }

  /** A token that reaches one shell only, as a `viewer` or `operator`; its holder names it. */
  mintShare(grant: ShareGrant): { token: string; share: ShareInfo } {
    const token = createTokenSecret();
    const now = Date.now();
    // Links that ended a while ago are dropped as new ones are made: the file stays small.
    const stale = this.#records.filter((r) => endedAt(r) + ENDED_LINKS_KEPT_MS <= now);
    for (const record of stale) this.#remove(record.id);
    const record: TokenRecord = {
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
    this.#add(record);
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
  revokeShare(sessionId: string, shareId: string, by: string): void {
    const index = this.#records.findIndex(
      (r) => r.id === shareId && r.scope === sessionId && r.revokedAt === undefined,
    );
    const record = this.#records[index];
    if (record === undefined) {
      throw new JumpseatError(
        JUMPSEAT_ERR_NOT_FOUND,
        `no share link ${JSON.stringify(shareId)} on this shell`,
      );
    }
    this.#replace(index, { ...record, revokedAt: new Date().toISOString() });
    this.onAuthEvent.fire({ kind: 'revoked', tokenId: record.id, name: record.name, by });
  }

  /**
   * Sets the display name of a minted token (a share link's holder naming themselves); the
   * principal returned for it from now on carries the new name. The admin's name is fixed.
   */
  rename(tokenId: string, name: string): Principal {
    const index = this.#records.findIndex((record) => record.id === tokenId);
    const record = this.#records[index];
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
    const checked = this.#personName(name, tokenId);
    this.#renames.take(tokenId);
    // Another person's name is allowed (two Bobs exist): a link holder is always shown as one.
    const entry = this.#replaceLater(index, { ...record, name: checked, named: true });
    this.onAuthEvent.fire({ kind: 'named', tokenId, name: checked });
    return entry.principal;
  }

  /** The token id is a share link's (working or not): its holder named themselves. */
  isShareLink(tokenId: string): boolean {
    return this.#records.some((record) => record.id === tokenId && record.scope !== undefined);
  }

  /** Every minted token and share link (working or revoked), oldest first; never a secret. */
  list(): TokenInfo[] {
    return this.#records.map((record) => ({
      id: record.id,
      name: record.name,
      role: record.role,
      agent: record.agent ?? null,
      ...(record.labels === undefined ? {} : { labels: { ...record.labels } }),
      scope: record.scope ?? null,
      link: record.scope !== undefined,
      createdAt: record.createdAt,
      createdBy: record.createdBy ?? null,
      lastUsedAt: this.#lastUsedOf(record),
      expiresAt: record.expiresAt ?? null,
      revokedAt: record.revokedAt ?? null,
    }));
  }

  /** The admin renames a minted token (not a share link: its holder names themselves). */
  renameToken(tokenId: string, name: string): TokenInfo {
    const index = this.#indexOf(tokenId);
    const record = this.#records[index] as TokenRecord;
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
    const checked = this.#personName(name, tokenId);
    this.#renames.take(tokenId);
    this.#replaceLater(index, { ...record, name: checked });
    this.onAuthEvent.fire({ kind: 'named', tokenId, name: checked });
    return this.list()[index] as TokenInfo;
  }

  /** Revokes any minted token or share link; its holder's sockets close on the event. */
  revoke(tokenId: string, by: string): void {
    const index = this.#indexOf(tokenId);
    const record = this.#records[index] as TokenRecord;
    if (record.revokedAt !== undefined) {
      throw new JumpseatError(
        JUMPSEAT_ERR_NOT_FOUND,
        `token ${JSON.stringify(tokenId)} was already revoked`,
      );
    }
    this.#replace(index, { ...record, revokedAt: new Date().toISOString() });
    this.onAuthEvent.fire({ kind: 'revoked', tokenId: record.id, name: record.name, by });
  }

  /**
   * A host's name: required, shaped like an agent id, and not the name of another working
   * host token (a host's name is bound to its token).
   */
  #hostName(raw: string | undefined): string {
    if (raw === undefined) {
      throw new JumpseatError(
        JUMPSEAT_ERR_BAD_REQUEST,
        'role "host" requires "name" (the host\'s name)',
      );
    }
    if (!HOST_NAME_REGEX.test(raw)) {
      throw new JumpseatError(
        JUMPSEAT_ERR_BAD_REQUEST,
        `host name ${JSON.stringify(raw)} must be 1-64 letters, digits, ".", "_" or "-", starting with a letter or digit`,
      );
    }
    const now = Date.now();
    if (this.#records.some((r) => r.role === 'host' && r.name === raw && endedAt(r) > now)) {
      throw new JumpseatError(
        JUMPSEAT_ERR_BAD_REQUEST,
        `a working host token named ${JSON.stringify(raw)} exists; revoke it first or choose another name`,
      );
    }
    return raw;
  }

  /**
   * A name given to a person (by the admin, or by a link holder): honest (see names.ts), and
   * not a look-alike of another working token's name (name-skeleton.ts), so nobody passes for
   * someone else. 400 saying whose name it looks like.
   */
  #personName(raw: string, tokenId?: string): string {
    const name = displayName(raw);
    const now = Date.now();
    const others = this.#records
      .filter((r) => r.id !== tokenId && r.named !== false && endedAt(r) > now)
      .map((r) => r.name);
    const like = lookAlikeOf(name, [ADMIN_PRINCIPAL.name, ...others]);
    if (like !== undefined) {
      throw new JumpseatError(
        JUMPSEAT_ERR_BAD_REQUEST,
        `a name may not look like another person's name (${JSON.stringify(like)})`,
      );
    }
    return name;
  }

  #indexOf(tokenId: string): number {
    const index = this.#records.findIndex((record) => record.id === tokenId);
    if (index === -1) {
      throw new JumpseatError(
        JUMPSEAT_ERR_NOT_FOUND,
        tokenId === ADMIN_PRINCIPAL.tokenId
          ? 'the admin token is configured, not minted: change it where it is configured'
          : `no token ${JSON.stringify(tokenId)}`,
      );
    }
    return index;
  }

  #lastUsedOf(record: TokenRecord): string | null {
    const used = this.#lastUsed.get(record.id);
    if (used !== undefined) return new Date(used).toISOString();
    return record.lastUsedAt ?? null;
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
   * Creates a token for a role and saves its hash; `agent` is required for role agent and
   * refused for the others (400).
   */
  mint(request: TokenRequest, by = 'admin'): MintedToken {
    if (request.role === 'agent' && request.agent === undefined) {
      throw new JumpseatError(
        JUMPSEAT_ERR_BAD_REQUEST,
        'role "agent" requires "agent" (the agent id)',
      );
    }
    if (request.role !== 'agent' && request.agent !== undefined) {
      throw new JumpseatError(
        JUMPSEAT_ERR_BAD_REQUEST,
        `"agent" is only allowed with role "agent", not "${request.role}"`,
      );
    }
    if (request.labels !== undefined) {
      if (request.role !== 'agent') {
        throw new JumpseatError(
          JUMPSEAT_ERR_BAD_REQUEST,
          `"labels" is only allowed with role "agent", not "${request.role}"`,
        );
      }
      const problem = labelsProblem(request.labels);
      if (problem !== undefined) throw new JumpseatError(JUMPSEAT_ERR_BAD_REQUEST, problem);
    }
    const token = createTokenSecret();
    const record: TokenRecord = {
      id: randomUUID(),
      sha256: sha256(token).toString('hex'),
      role: request.role,
      ...(request.agent === undefined ? {} : { agent: request.agent }),
      name:
        request.role === 'host'
          ? this.#hostName(request.name)
          : request.name === undefined
            ? defaultName(request)
            : this.#personName(request.name),
      createdAt: new Date().toISOString(),
      ...(request.labels === undefined || Object.keys(request.labels).length === 0
        ? {}
        : { labels: { ...request.labels } }),
    };
    const entry = this.#add(record);
    this.onAuthEvent.fire({
      kind: 'minted',
      tokenId: record.id,
      name: record.name,
      role: record.role,
      scope: null,
      by,
    });
    return { token, principal: entry.principal };
  }

  /** Keeps when a token was last used; saved to the file at most every LAST_USED_SAVE_MS. */
  #noteLastUse(tokenId: string): void {
    const now = Date.now();
    this.#lastUsed.set(tokenId, now);
    const index = this.#records.findIndex((record) => record.id === tokenId);
    const record = this.#records[index];
    if (record === undefined) return;
    const saved = record.lastUsedAt === undefined ? 0 : Date.parse(record.lastUsedAt);
    if (now - saved < LAST_USED_SAVE_MS) return;
    // A full disk must not refuse the request: the time is kept in memory meanwhile.
    this.#replaceLater(index, { ...record, lastUsedAt: new Date(now).toISOString() });
  }

  /** Writes what waits to be saved now (the server is closing). */
  flush(): void {
    if (this.#saveTimer === undefined) return;
    clearTimeout(this.#saveTimer);
    this.#saveTimer = undefined;
    try {
      this.#save(this.#records);
    } catch {
      // Said through onSave; nothing more can be done on the way out.
    }
  }

  /**
   * Writes the file; a disk that refuses is reported and answered 503 (the change does not
   * take effect), never a 500.
   */
  #save(records: readonly TokenRecord[]): void {
    try {
      saveTokenRecords(this.#dataDir, records);
    } catch (error) {
      this.onSave.fire(error);
      const code = storageErrorCode(error) ?? 'EIO';
      throw new JumpseatError(
        JUMPSEAT_ERR_STORAGE_UNAVAILABLE,
        `the tokens file cannot be written (${code}); nothing was changed — try again once the data dir has space and write access`,
      );
    }
    // Whatever waited went with it.
    clearTimeout(this.#saveTimer);
    this.#saveTimer = undefined;
    this.onSave.fire(null);
  }

  /** Changes the record now and saves it with the next lazy save. */
  #replaceLater(index: number, record: TokenRecord): KnownToken {
    this.#records.splice(index, 1, record);
    const entry = known(record);
    this.#known.splice(index, 1, entry);
    this.#saveSoon(LAZY_SAVE_MS);
    return entry;
  }

  #saveSoon(delayMs: number): void {
    if (this.#saveTimer !== undefined) return;
    this.#saveTimer = setTimeout(() => {
      this.#saveTimer = undefined;
      try {
        this.#save(this.#records);
      } catch {
        this.#saveSoon(SAVE_RETRY_MS);
      }
    }, delayMs);
    this.#saveTimer.unref();
  }

  /** Saves a new record first, then makes its token work. */
  #add(record: TokenRecord): KnownToken {
    this.#save([...this.#records, record]);
    this.#records.push(record);
    const entry = known(record);
    this.#known.push(entry);
    return entry;
  }

  #replace(index: number, record: TokenRecord): KnownToken {
    this.#save(this.#records.map((r, i) => (i === index ? record : r)));
    this.#records.splice(index, 1, record);
    const entry = known(record);
    this.#known.splice(index, 1, entry);
    return entry;
  }

  /** The token a presented secret is, the admin's or a minted one, working or not. */
  #find(presented: string): { principal: Principal; record?: TokenRecord } | undefined {
    if (!isWellFormedToken(presented)) return undefined;
    const digest = sha256(presented);
    // Compare against every hash without stopping early, so timing tells nothing about
    // which token (if any) matched; the hashes are all 32 bytes, as timingSafeEqual needs.
    let match: { principal: Principal; record?: TokenRecord } | undefined = timingSafeEqual(
      digest,
      this.#adminHash,
    )
      ? { principal: ADMIN_PRINCIPAL }
      : undefined;
    this.#known.forEach((token, index) => {
      if (timingSafeEqual(digest, token.hash)) {
        match = { principal: token.principal, record: this.#records[index] as TokenRecord };
      }
    });
    return match;
  }

  #ended(found: { record?: TokenRecord }): EndedLink | undefined {
    if (found.record?.revokedAt !== undefined) {
      return found.record.scope === undefined ? 'token_revoked' : 'revoked';
    }
    if (found.record !== undefined && endedAt(found.record) <= Date.now()) return 'expired';
    return undefined;
  }

  #remove(tokenId: string): void {
    const index = this.#records.findIndex((record) => record.id === tokenId);
    if (index === -1) return;
    this.#save(this.#records.filter((_, i) => i !== index));
    this.#records.splice(index, 1);
    this.#known.splice(index, 1);
  }
}

/** When a token stopped working (revoked or expired); Infinity while it works. */
function endedAt(record: TokenRecord): number {
  if (record.revokedAt !== undefined) return Date.parse(record.revokedAt);
  return record.expiresAt === undefined ? Number.POSITIVE_INFINITY : Date.parse(record.expiresAt);
}

function shareInfo(record: TokenRecord): ShareInfo {
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

/** A display name as kept, or 400 saying what is wrong with it (see shared/src/names.ts). */
function displayName(raw: string): string {
  const checked = checkDisplayName(raw);
  if ('error' in checked) throw new JumpseatError(JUMPSEAT_ERR_BAD_REQUEST, checked.error);
  return checked.name;
}

function sha256(text: string): Buffer {
  return createHash('sha256').update(text, 'utf8').digest();
}

function defaultName(request: TokenRequest): string {
  return request.agent === undefined ? request.role : `agent:${request.agent}`;
}

function known(record: TokenRecord): KnownToken {
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
