/**
 * The token store's default engine: every change rewrites `tokens.json` (token-file.ts).
 * Mints and revocations are written before they take effect; names and last uses are
 * written a moment later, together, so a burst of renames is one write of the file.
 */
import { JUMPSEAT_ERR_STORAGE_UNAVAILABLE, JumpseatError } from '../errors.ts';
import { storageErrorCode } from '../ops/storage-health.ts';
import { Emitter, toDisposable } from '../pty/disposable.ts';
import { RenameLimit } from './rename-limit.ts';
import type { TokenEngine } from './token-engine.ts';
import { saveTokenRecords, type TokenRecord } from './token-file.ts';

/** Names and last uses are saved this long after they change, together. */
const LAZY_SAVE_MS = 1000;
/** A lazy save the disk refused is tried again this often. */
const SAVE_RETRY_MS = 5000;

export class TokenFileEngine implements TokenEngine {
  readonly onSave = new Emitter<unknown>();
  readonly namesWait = false;
  readonly renames = new RenameLimit();
  /** Changes kept in memory and not yet in the file (see LAZY_SAVE_MS). */
  #saveTimer: NodeJS.Timeout | undefined;
  #pending: (() => readonly TokenRecord[]) | undefined;

  constructor(private readonly dataDir: string) {}

  async commit(_write: unknown, after: readonly TokenRecord[]): Promise<boolean> {
    this.#save(after);
    return true;
  }

  commitSoon(_write: unknown, after: () => readonly TokenRecord[]): void {
    this.#pending = after;
    this.#saveSoon(LAZY_SAVE_MS);
  }

  async flush(): Promise<void> {
    if (this.#saveTimer === undefined || this.#pending === undefined) return;
    clearTimeout(this.#saveTimer);
    this.#saveTimer = undefined;
    try {
      this.#save(this.#pending());
    } catch {
      // Said through onSave; nothing more can be done on the way out.
    }
  }

  async lookup(): Promise<undefined> {
    return undefined;
  }

  async watch() {
    return toDisposable(() => undefined);
  }

  /**
   * Writes the file; a disk that refuses is reported and answered 503 (the change does not
   * take effect), never a 500.
   */
  #save(records: readonly TokenRecord[]): void {
    try {
      saveTokenRecords(this.dataDir, records);
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

  #saveSoon(delayMs: number): void {
    if (this.#saveTimer !== undefined) return;
    this.#saveTimer = setTimeout(() => {
      this.#saveTimer = undefined;
      try {
        if (this.#pending !== undefined) this.#save(this.#pending());
      } catch {
        this.#saveSoon(SAVE_RETRY_MS);
      }
    }, delayMs);
    this.#saveTimer.unref();
  }
}
