/**
 * The tokens the server accepts: the admin token from configuration, and tokens minted for a
 * role, kept across restarts as SHA-256 hashes only, so the file never holds a usable secret.
 */
import { createHash, randomUUID, timingSafeEqual } from 'node:crypto';
import type { TokenRequest } from '../../../shared/src/api.ts';
import { JUMPSEAT_ERR_BAD_REQUEST, JumpseatError } from '../errors.ts';
import { Emitter } from '../pty/disposable.ts';
import type { AuthEvent } from './auth-events.ts';
import type { Principal } from './principal.ts';
import { loadTokenRecords, saveTokenRecords, type TokenRecord } from './token-file.ts';
import { createTokenSecret, isWellFormedToken } from './token-secret.ts';

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

/** Addresses remembered per token for `new_address` events, before the oldest is forgotten. */
const MAX_ADDRESSES_PER_TOKEN = 64;

export class TokenStore {
  /** Mints, revocations, first uses from an address and refusals, for the audit trail. */
  readonly onAuthEvent = new Emitter<AuthEvent>();
  /** Addresses each token was used from since the server started. */
  readonly #seenFrom = new Map<string, Set<string>>();
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
    if (!isWellFormedToken(presented)) return undefined;
    const digest = sha256(presented);
    // Compare against every hash without stopping early, so timing tells nothing about
    // which token (if any) matched; the hashes are all 32 bytes, as timingSafeEqual needs.
    let match: Principal | undefined = timingSafeEqual(digest, this.#adminHash)
      ? ADMIN_PRINCIPAL
      : undefined;
    for (const token of this.#known) {
      if (timingSafeEqual(digest, token.hash)) match = token.principal;
    }
    return match;
  }

  /** Reports a token's first use from an address (since this server started). */
  noteUse(principal: Principal, address: string): void {
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
    const token = createTokenSecret();
    const record: TokenRecord = {
      id: randomUUID(),
      sha256: sha256(token).toString('hex'),
      role: request.role,
      ...(request.agent === undefined ? {} : { agent: request.agent }),
      name: request.name ?? defaultName(request),
      createdAt: new Date().toISOString(),
    };
    saveTokenRecords(this.#dataDir, [...this.#records, record]);
    this.#records.push(record);
    const entry = known(record);
    this.#known.push(entry);
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
}

function sha256(text: string): Buffer {
  return createHash('sha256').update(text, 'utf8').digest();
}

function defaultName(request: TokenRequest): string {
  return request.agent === undefined ? request.role : `agent:${request.agent}`;
}

function known(record: TokenRecord): KnownToken {
  const hash = Buffer.from(record.sha256, 'hex');
  const common = { name: record.name, tokenId: record.id };
  if (record.role === 'agent') {
    return { hash, principal: { role: 'agent', agent: record.agent ?? '', ...common } };
  }
  return { hash, principal: { role: record.role, ...common } };
}
