/**
 * Where the token store keeps its records: the tokens file (one server, the default) or
 * PostgreSQL (replicas sharing one database). The store keeps every record in memory either
 * way, so a token is checked without I/O; an engine only makes changes last, and a shared
 * engine also tells the store what other replicas changed.
 */
import type { Disposable, Emitter } from '../pty/disposable.ts';
import type { RenameAllowances } from './rename-limit.ts';
import type { TokenRecord } from './token-file.ts';

/** The fields a change to a kept token may touch; the rest never change. */
export type TokenPatch = Partial<
  Pick<TokenRecord, 'name' | 'named' | 'revokedAt' | 'revokedBy' | 'lastUsedAt'>
>;

export type TokenWrite =
  | { readonly kind: 'insert'; readonly record: TokenRecord }
  | {
      readonly kind: 'patch';
      readonly id: string;
      readonly fields: TokenPatch;
      /** Only while the token is not revoked (a revocation races another replica's). */
      readonly unlessRevoked?: boolean;
    }
  | { readonly kind: 'remove'; readonly ids: readonly string[] };

/** What another replica changed: the record as kept now, or undefined when it is gone. */
export interface RemoteChange {
  readonly id: string;
  readonly record: TokenRecord | undefined;
}

export interface TokenEngine {
  /** Each save of the tokens file: null when written, else why the disk refused (file engine). */
  readonly onSave: Emitter<unknown>;
  /**
   * Whether a display name is committed before the rename is answered (a shared engine: every
   * replica must show it) or saved with the next batch (the file engine).
   */
  readonly namesWait: boolean;
  /** Each token's rename allowance: this server's (file engine) or every replica's. */
  readonly renames: RenameAllowances;
  /**
   * Makes `write` last (and, shared, known to every replica) before it takes effect; `after`
   * is every record with the write applied (what a file is rewritten with). False when an
   * `unlessRevoked` patch found the token revoked. Throws a JumpseatError (503) when it cannot.
   */
  commit(write: TokenWrite, after: readonly TokenRecord[]): Promise<boolean>;
  /** A change that may wait and go in a batch (last uses; the file engine's names). */
  commitSoon(write: TokenWrite, after: () => readonly TokenRecord[]): void;
  /** Writes what waits (the server is closing). */
  flush(): Promise<void>;
  /**
   * A shared engine: the record of a token not (yet) known here, by hash or id, for a token
   * minted on another replica a moment ago; undefined when there is none or it cannot tell.
   */
  lookup(by: { sha256: string } | { id: string }): Promise<TokenRecord | undefined>;
  /**
   * Starts telling the store what other replicas change; `reload` gets every record when
   * changes may have been missed (the database's LISTEN connection came back).
   */
  watch(
    changed: (change: RemoteChange) => void,
    reload: (records: readonly TokenRecord[]) => void,
  ): Promise<Disposable>;
}
