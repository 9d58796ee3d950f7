/**
 * The error model (decisions.md, Errors): every error answer is `{error, code, details?}`.
 * Routes and modules throw `HttpError` (or a domain error mapped here); anything else is a
 * real fault: logged with its stack, answered as a bare 500 `internal_error`.
 */
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { z } from "zod";
import { ERROR_CODES, type ErrorBody } from "../../shared/resources/index.js";
import { ConflictError, InvalidRequestError, NotFoundError, QuotaExceededError, UnavailableError } from "../errors.js";
import { ComponentLoadError, HookError } from "../services.js";
import { CursorNotFoundError } from "../store/repos/paging.js";
import { InstallBudgetError, InstallsBusyError } from "../runtime/npm/install-gate.js";

export class HttpError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly details?: ErrorBody["details"],
    /** Extra response headers (`Retry-After`). */
    readonly headers?: Record<string, string>,
  ) {
    super(message);
    this.name = "HttpError";
  }
}

export const notFound = (what: string) => new HttpError(404, ERROR_CODES.notFound, `${what} not found`);
export const badRequest = (message: string, code: string = ERROR_CODES.badRequest) =>
  new HttpError(400, code, message);

/** A zod failure (classic or mini: a core `$ZodError`) as a 400 with one detail per issue. */
export function validationError(error: z.core.$ZodError, where: string): HttpError {
  const details = error.issues.map((i) => ({
    path: [where, ...i.path.map(String)].join("."),
    message: i.message,
  }));
  const first = details[0];
  return new HttpError(
    400,
    ERROR_CODES.validation,
    first ? `invalid ${first.path}: ${first.message}` : `invalid ${where}`,
    details,
  );
}

/** Parses `value` with `schema`, or throws the 400 that says what is wrong. */
export function parseOr400<T extends z.core.$ZodType>(schema: T, value: unknown, where: string): z.infer<T> {
  const r = z.safeParse(schema, value);
  if (!r.success) throw validationError(r.error, where);
  return r.data;
}

/** Fastify's own 4xx errors (body parsing, content type), as ours. */
const FASTIFY_CODES: Record<string, { status: number; code: string; message?: string }> = {
  FST_ERR_CTP_INVALID_JSON_BODY: {
    status: 400,
    code: ERROR_CODES.invalidJson,
    message: "malformed JSON body",
  },
  FST_ERR_CTP_EMPTY_JSON_BODY: { status: 400, code: ERROR_CODES.invalidJson, message: "empty JSON body" },
  FST_ERR_CTP_BODY_TOO_LARGE: {
    status: 413,
    code: ERROR_CODES.payloadTooLarge,
    message: "request body too large",
  },
  FST_ERR_CTP_INVALID_MEDIA_TYPE: { status: 415, code: "unsupported_media_type" },
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: { status: 400, code: ERROR_CODES.badRequest },
};

function toHttpError(err: unknown): HttpError | undefined {
  if (err instanceof HttpError) return err;
  // $ZodError, not $ZodRealError: the latter's instanceof is true of any Error.
  if (err instanceof z.core.$ZodError) return validationError(err, "request");
  if (err instanceof NotFoundError) return new HttpError(404, ERROR_CODES.notFound, err.message);
  if (err instanceof InvalidRequestError) return new HttpError(400, err.code, err.message, err.details);
  if (err instanceof ConflictError) return new HttpError(409, err.code, err.message, err.details);
  if (err instanceof QuotaExceededError) return new HttpError(429, ERROR_CODES.quotaExceeded, err.message);
  if (err instanceof UnavailableError) {
    const headers = err.retryAfterSeconds ? { "retry-after": String(err.retryAfterSeconds) } : undefined;
    return new HttpError(503, err.code, err.message, undefined, headers);
  }
  if (err instanceof InstallsBusyError) {
    return new HttpError(503, ERROR_CODES.unavailable, err.message, undefined, { "retry-after": String(err.retryAfterSeconds) });
  }
  if (err instanceof InstallBudgetError) {
    return new HttpError(429, ERROR_CODES.rateLimited, err.message, undefined, { "retry-after": String(err.retryAfterSeconds) });
  }
  if (err instanceof CursorNotFoundError) return badRequest(err.message, ERROR_CODES.badCursor);
  if (err instanceof ComponentLoadError) return new HttpError(400, err.code, err.message);
  if (err instanceof HookError)
    return new HttpError(400, ERROR_CODES.hookFailed, `${err.hook} hook failed: ${err.message}`);
  const fe = err as Partial<FastifyError>;
  const known = fe.code ? FASTIFY_CODES[fe.code] : undefined;
  if (known) return new HttpError(known.status, known.code, known.message ?? fe.message ?? "bad request");
  // Other Fastify client errors (e.g. a prototype-poisoning JSON body) carry a 4xx statusCode.
  if (typeof fe.statusCode === "number" && fe.statusCode >= 400 && fe.statusCode < 500 && fe.message) {
    const code = fe.statusCode === 400 ? ERROR_CODES.badRequest : `http_${fe.statusCode}`;
    return new HttpError(fe.statusCode, code, fe.message);
  }
  return undefined;
}

export function sendError(reply: FastifyReply, err: HttpError): FastifyReply {
  const body: ErrorBody = { error: err.message, code: err.code };
  if (err.details) body.details = err.details;
  if (err.headers) reply.headers(err.headers);
  return reply.code(err.status).type("application/json; charset=utf-8").send(body);
}

/** The answer to any error: its 4xx when it is a known one, else logged and a bare 500. */
export function answerError(err: unknown, request: FastifyRequest, reply: FastifyReply): FastifyReply {
  const known = toHttpError(err);
  if (known) return sendError(reply, known);
  request.log.error({ err }, "unexpected error");
  return sendError(reply, new HttpError(500, ERROR_CODES.internal, "internal server error"));
}

export function registerErrorModel(app: FastifyInstance): void {
  app.setErrorHandler(answerError);
  app.setNotFoundHandler((request, reply) =>
    sendError(
      reply,
      new HttpError(404, ERROR_CODES.notFound, `no route ${request.method} ${request.url.split("?")[0]}`),
    ),
  );
}
