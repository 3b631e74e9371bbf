/**
 * The catalogue of coded errors every layer may raise. Each carries the HTTP status and
 * the short wire code that clients see as `{"error": {"code", "message"}}`.
 */

export interface ErrorSpec {
  /** The code clients see on the wire. */
  readonly code: string;
  readonly status: number;
}

export const JUMPSEAT_ERR_BAD_REQUEST: ErrorSpec = { code: 'BAD_REQUEST', status: 400 };
export const JUMPSEAT_ERR_UNAUTHORIZED: ErrorSpec = { code: 'UNAUTHORIZED', status: 401 };
/** A share link's token that was revoked or expired (its holder is told which). */
export const JUMPSEAT_ERR_LINK_ENDED: ErrorSpec = { code: 'LINK_ENDED', status: 401 };
export const JUMPSEAT_ERR_FORBIDDEN: ErrorSpec = { code: 'FORBIDDEN', status: 403 };
export const JUMPSEAT_ERR_NOT_FOUND: ErrorSpec = { code: 'NOT_FOUND', status: 404 };
export const JUMPSEAT_ERR_HUMAN_CONTROL: ErrorSpec = { code: 'HUMAN_CONTROL', status: 409 };
/** Live control refused: someone else holds the controls, or the sender does not. */
export const JUMPSEAT_ERR_CONTROLLED: ErrorSpec = { code: 'CONTROLLED', status: 409 };
/** A hand-off to an agent that already has a live shell of that dialect. */
export const JUMPSEAT_ERR_AGENT_HAS_SHELL: ErrorSpec = { code: 'AGENT_HAS_SHELL', status: 409 };
/** A hand-off of a shell that is not (or no longer) a person's own live shell. */
export const JUMPSEAT_ERR_NOT_PERSONAL: ErrorSpec = { code: 'NOT_PERSONAL', status: 409 };
/** A person already has as many shells of their own open as one may. */
export const JUMPSEAT_ERR_TOO_MANY_SHELLS: ErrorSpec = { code: 'TOO_MANY_SHELLS', status: 429 };
/** A token has as many MCP sessions open as it may, each with a call running. */
export const JUMPSEAT_ERR_TOO_MANY_MCP_SESSIONS: ErrorSpec = {
  code: 'TOO_MANY_MCP_SESSIONS',
  status: 429,
};
export const JUMPSEAT_ERR_BODY_TOO_LARGE: ErrorSpec = { code: 'BODY_TOO_LARGE', status: 413 };
export const JUMPSEAT_ERR_SHELL_UNAVAILABLE: ErrorSpec = { code: 'SHELL_UNAVAILABLE', status: 503 };
/** As many shells run as the server's open-file limit allows (ops/descriptor-limit.ts). */
export const JUMPSEAT_ERR_SHELL_CAPACITY: ErrorSpec = { code: 'SHELL_CAPACITY', status: 503 };
export const JUMPSEAT_ERR_SHUTTING_DOWN: ErrorSpec = { code: 'SHUTTING_DOWN', status: 503 };
/** The caller went away before the result (nginx's 499: client closed request). */
export const JUMPSEAT_ERR_CANCELLED: ErrorSpec = { code: 'CANCELLED', status: 499 };
export const JUMPSEAT_ERR_INTERNAL: ErrorSpec = { code: 'INTERNAL', status: 500 };
/** The data dir cannot be written (full, read-only, no permission): try again once it can. */
export const JUMPSEAT_ERR_STORAGE_UNAVAILABLE: ErrorSpec = {
  code: 'STORAGE_UNAVAILABLE',
  status: 503,
};
/**
 * `--database`: PostgreSQL cannot be reached. A change every replica must share (a mint, a
 * revocation, a login) is refused, and so is a read that needs it (past shells, the audit,
 * recordings); what exists keeps working from memory, and live shells keep working.
 */
export const JUMPSEAT_ERR_DATABASE_UNAVAILABLE: ErrorSpec = {
  code: 'DATABASE_UNAVAILABLE',
  status: 503,
};
/** Too many of one kind of request from one token; `Retry-After` says when to try again. */
export const JUMPSEAT_ERR_RATE_LIMITED: ErrorSpec = { code: 'RATE_LIMITED', status: 429 };

/** An error a user can act on; its message is safe to show as is. */
export class JumpseatError extends Error {
  readonly code: string;
  readonly status: number;

  constructor(spec: ErrorSpec, message: string) {
    super(message);
    this.name = 'JumpseatError';
    this.code = spec.code;
    this.status = spec.status;
  }
}

/** A refusal that is over after a while: the reply carries `Retry-After`. */
export class RetryLaterError extends JumpseatError {
  constructor(
    spec: ErrorSpec,
    message: string,
    readonly retryAfterSeconds: number,
  ) {
    super(spec, message);
    this.name = 'RetryLaterError';
  }
}
