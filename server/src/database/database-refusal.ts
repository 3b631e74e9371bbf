/**
 * A change that every replica must share, refused because PostgreSQL cannot be reached now:
 * 503 `DATABASE_UNAVAILABLE`, saying nothing changed and when to try again. Any other error is
 * left as it is.
 */
import { JUMPSEAT_ERR_DATABASE_UNAVAILABLE, JumpseatError } from '../errors.ts';
import { unavailableReason } from './postgres-database.ts';

/** `what` names the change, e.g. "the new token". */
export function refusedForDatabase(error: unknown, what: string): unknown {
  if (error instanceof JumpseatError || unavailableReason(error) === undefined) return error;
  return new JumpseatError(
    JUMPSEAT_ERR_DATABASE_UNAVAILABLE,
    `the database is unavailable, so ${what} cannot be kept and shared with the other replicas; nothing was changed — try again once it is back (/healthz says "database": "ok")`,
  );
}
