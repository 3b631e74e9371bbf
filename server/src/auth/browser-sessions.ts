/**
 * Browser credentials (issue 13). A login URL's token is traded, by the page itself, for a
 * credential of this browser's own: the page keeps it in `localStorage` and sends it as
 * `Authorization: Bearer jsb_…`, and gets a short-lived single-use ticket for each WebSocket.
 *
 * Why not a cookie: cookies are not scoped by port, so every server on the host (an agent's
 * preview server included) received the old `jumpseat_token` cookie. `localStorage` is scoped
 * by origin (scheme, host and port), no browser attaches it to any request, and a header is
 * never sent cross-origin without a CORS preflight we do not answer. Why a credential of its
 * own and not the token: the page never keeps the long-lived token, signing out ends only this
 * browser, and revoking the token ends every browser credential made from it.
 *
 * Kept as SHA-256 hashes in `browser-sessions.json` (mode 600) so a restart keeps people in;
 * with `--database`, in PostgreSQL, so a person logged in through one replica is logged in on
 * every other (browser-sessions-postgres.ts).
 */
import { createHash, randomBytes } from 'node:crypto';
import { chmodSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { type Static, Type } from 'typebox';
import { Value } from 'typebox/value';
import { errorCode, SECRET_FILE_MODE } from '../config/admin-token.ts';
import { ConfigError } from '../config/config-error.ts';

/** Every browser credential starts with this, so it is never mistaken for a token. */
export const BROWSER_CREDENTIAL_PREFIX = 'jsb_';
const CREDENTIAL_RANDOM_BYTES = 32;
export const BROWSER_SESSIONS_FILE_NAME = 'browser-sessions.json';
const FILE_VERSION = 1;
/** Credentials kept per token before the oldest is dropped: one per browser a person uses. */
export const MAX_SESSIONS_PER_TOKEN = 50;

const SessionRecord = Type.Object({
  sha256: Type.String({ pattern: '^[0-9a-f]{64}$' }),
  tokenId: Type.String({ minLength: 1 }),
  createdAt: Type.String(),
});
type SessionRecord = Static<typeof SessionRecord>;
const SessionsFile = Type.Object({
  version: Type.Literal(FILE_VERSION),
  sessions: Type.Array(SessionRecord),
});

/** Where browser credentials are kept: the data dir's file, or the shared database. */
export interface BrowserCredentials {
  /** A new credential for the token `tokenId`; shown once, to the page that traded for it. */
  create(tokenId: string): Promise<string>;
  /** The token a credential was made from; undefined for one never made or already ended. */
  tokenIdOf(credential: string): Promise<string | undefined>;
  /** Signs one browser out. */
  end(credential: string): Promise<void>;
  /** Forgets the credentials of tokens that are gone for good (see BrowserSessions.prune). */
  prune(known: (tokenId: string) => boolean): Promise<void>;
}

/** A new credential, and the hash it is kept as. */
export function newBrowserCredential(): { credential: string; sha256: string } {
  const credential =
    BROWSER_CREDENTIAL_PREFIX + randomBytes(CREDENTIAL_RANDOM_BYTES).toString('base64url');
  return { credential, sha256: credentialHash(credential) };
}

export class BrowserSessions implements BrowserCredentials {
  readonly #path: string;
  readonly #records: SessionRecord[];

  private constructor(path: string, records: SessionRecord[]) {
    this.#path = path;
    this.#records = records;
  }

  /** Loads the credentials kept in `dataDir`; throws ConfigError when the file is corrupt. */
  static open(dataDir: string): BrowserSessions {
    const path = join(dataDir, BROWSER_SESSIONS_FILE_NAME);
    return new BrowserSessions(path, load(path));
  }

  static isCredential(presented: string): boolean {
    return presented.startsWith(BROWSER_CREDENTIAL_PREFIX);
  }

  /** A new credential for the token `tokenId`; shown once, to the page that traded for it. */
  async create(tokenId: string): Promise<string> {
    const { credential, sha256 } = newBrowserCredential();
    const mine = this.#records.filter((record) => record.tokenId === tokenId);
    const dropped = new Set(mine.slice(0, Math.max(0, mine.length - MAX_SESSIONS_PER_TOKEN + 1)));
    const kept = this.#records.filter((record) => !dropped.has(record));
    kept.push({ sha256, tokenId, createdAt: new Date().toISOString() });
    this.#save(kept);
    return credential;
  }

  /** The token a credential was made from; undefined for one never made or already ended. */
  async tokenIdOf(credential: string): Promise<string | undefined> {
    const digest = credentialHash(credential);
    return this.#records.find((record) => record.sha256 === digest)?.tokenId;
  }

  /** Signs one browser out. */
  async end(credential: string): Promise<void> {
    const digest = credentialHash(credential);
    this.#save(this.#records.filter((record) => record.sha256 !== digest));
  }

  /**
   * Forgets the credentials of tokens that are gone for good. A revoked token's are kept
   * while the token is remembered, so its holder's page can say "revoked", not "log in".
   */
  async prune(known: (tokenId: string) => boolean): Promise<void> {
    const kept = this.#records.filter((record) => known(record.tokenId));
    if (kept.length !== this.#records.length) this.#save(kept);
  }

  #save(records: SessionRecord[]): void {
    const temporary = `${this.#path}.${process.pid}.tmp`;
    const text = `${JSON.stringify({ version: FILE_VERSION, sessions: records }, null, 2)}\n`;
    writeFileSync(temporary, text, { mode: SECRET_FILE_MODE });
    chmodSync(temporary, SECRET_FILE_MODE);
    renameSync(temporary, this.#path);
    this.#records.splice(0, this.#records.length, ...records);
  }
}

function load(path: string): SessionRecord[] {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    if (errorCode(error) === 'ENOENT') return [];
    throw new ConfigError(`browser sessions file "${path}" cannot be read (${errorCode(error)})`);
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new ConfigError(`browser sessions file "${path}" is not valid JSON; fix or delete it`);
  }
  if (!Value.Check(SessionsFile, parsed)) {
    throw new ConfigError(`browser sessions file "${path}" has an unexpected shape; delete it`);
  }
  return parsed.sessions;
}

export function credentialHash(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex');
}
