/**
 * Domain errors any server module may throw; the HTTP error model (http/errors.ts) turns each
 * into its status and `{error, code}`. Modules stay free of HTTP, routes stay free of logic.
 */

/** An unknown id, or one that belongs to another user (which must look the same): 404. */
export class NotFoundError extends Error {
  constructor(what: string) {
    super(`${what} not found`);
    this.name = "NotFoundError";
  }
}

/** The request is well-formed but cannot be done as asked: 400 with `code`. */
export class InvalidRequestError extends Error {
  constructor(
    message: string,
    readonly code: string = "bad_request",
    readonly details?: Array<{ path: string; message: string }>,
  ) {
    super(message);
    this.name = "InvalidRequestError";
  }
}

/** Conflicts with existing state (a key or name held by someone else): 409. */
export class ConflictError extends Error {
  constructor(
    message: string,
    readonly code: string = "conflict",
    readonly details?: Array<{ path: string; message: string }>,
  ) {
    super(message);
    this.name = "ConflictError";
  }
}

/** A daily quota of the user is used up: 429 `quota_exceeded`. */
export class QuotaExceededError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "QuotaExceededError";
  }
}

/** Cannot be done now for a reason outside the request (a registry that did not answer): 503. */
export class UnavailableError extends Error {
  constructor(
    message: string,
    readonly code: string = "unavailable",
    /** Sent as `Retry-After` when known. */
    readonly retryAfterSeconds?: number,
  ) {
    super(message);
    this.name = "UnavailableError";
  }
}
