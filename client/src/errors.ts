/**
 * What a jumpseat server's refusals become in the client: one class per status a caller can
 * act on, each with the server's wire code and message.
 */

export class JumpseatApiError extends Error {
  /** HTTP status of the refusal. */
  readonly status: number;
  /** The server's error code (`BAD_REQUEST`, `HUMAN_CONTROL`, …). */
  readonly code: string;

  constructor(status: number, code: string, message: string) {
    super(message);
    this.name = 'JumpseatApiError';
    this.status = status;
    this.code = code;
  }
}

/** 400: a bad body, an empty command, an invalid agent id. */
export class BadRequestError extends JumpseatApiError {
  override readonly name = 'BadRequestError';
}

/** 401: no token, or one the server does not know. */
export class UnauthorizedError extends JumpseatApiError {
  override readonly name = 'UnauthorizedError';
}

/** 403: the token is valid but not for this (another agent, a role without the right). */
export class ForbiddenError extends JumpseatApiError {
  override readonly name = 'ForbiddenError';
}

/** 404: no such session, route or dialect. */
export class NotFoundError extends JumpseatApiError {
  override readonly name = 'NotFoundError';
}

/** 409 `HUMAN_CONTROL`: a human holds this shell; try again once they release it. */
export class HumanControlError extends JumpseatApiError {
  override readonly name = 'HumanControlError';
}

const BY_STATUS: Record<number, typeof JumpseatApiError> = {
  400: BadRequestError,
  401: UnauthorizedError,
  403: ForbiddenError,
  404: NotFoundError,
};

/** The typed error for a refusal with `status` and the server's `{"error": …}` body. */
export function apiError(status: number, code: string, message: string): JumpseatApiError {
  // 409 has several causes (a human holds the shell, the agent already has one, …): by code.
  const ErrorClass =
    code === 'HUMAN_CONTROL' ? HumanControlError : (BY_STATUS[status] ?? JumpseatApiError);
  return new ErrorClass(status, code, message);
}
