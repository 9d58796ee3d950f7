/**
 * Errors raised below the router, in the API's error shape `{error, code}` like every other
 * answer (decisions.md, Errors). Node's HTTP parser refuses some requests before Fastify sees
 * them (a `clientError` on the socket); Fastify's default answer there is its own body
 * `{error, message, statusCode}`. These are the answers, each with a stable code:
 *
 * | what                                                   | status | code                |
 * |--------------------------------------------------------|--------|---------------------|
 * | request line and headers over Node's limit (16 KiB)    | 431    | `headers_too_large` |
 * | a URL over MAX_URL_BYTES (however long the headers)    | 414    | `url_too_long`      |
 * | a request Node's parser cannot read (request line, headers, framing) | 400 | `malformed_request` |
 * | a URL whose percent-encoding is broken (Fastify's router) | 400 | `malformed_url`     |
 * | a path segment over MAX_PATH_PARAM (800 characters)    | 414    | `url_too_long`      |
 * | a path parameter holding a NUL or a control character  | 404    | `not_found`         |
 * | a NUL in the query string (but an endpoint's, `/e/`)   | 400    | `bad_request`       |
 * | the request's head or body did not arrive in time      | 408    | `request_timeout`   |
 *
 * The connection is closed after such an answer: the parser's state is unknown past the error.
 */
import { nodeHttp } from "../../shared/node-http.js";
import type { Socket } from "node:net";
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { answerError, HttpError, sendError } from "./errors.js";
import { ERROR_CODES } from "../../shared/resources/index.js";

/** The longest URL (path and query) answered; longer ones get 414 `url_too_long`. */
export const MAX_URL_BYTES = 8192;
/**
 * The router's longest path segment: a data store record's key of 256 bytes percent-encodes to
 * at most 768 characters (every byte as %XX).
 */
export const MAX_PATH_PARAM = 800;

export const CLIENT_ERROR_CODES = {
  headersTooLarge: "headers_too_large",
  urlTooLong: "url_too_long",
  malformed: "malformed_request",
  malformedUrl: "malformed_url",
  timeout: "request_timeout",
} as const;

interface ParserError extends Error {
  code?: string;
  /** What the parser was reading when it failed (Node sets a Buffer on parse errors). */
  rawPacket?: unknown;
}

const urlTooLong = () => new HttpError(414, CLIENT_ERROR_CODES.urlTooLong, `the URL is longer than ${MAX_URL_BYTES} bytes`);

/** The status, code and message for a parser's refusal. */
export function clientErrorAnswer(err: ParserError): HttpError {
  if (err.code === "ERR_HTTP_REQUEST_TIMEOUT") {
    return new HttpError(408, CLIENT_ERROR_CODES.timeout, "the request did not arrive in time");
  }
  if (err.code === "HPE_HEADER_OVERFLOW") {
    // The limit counts the request line too: when the line itself is what overflowed, say so.
    if (requestLineTooLong(err.rawPacket)) return urlTooLong();
    return new HttpError(
      431,
      CLIENT_ERROR_CODES.headersTooLarge,
      `the request line and headers are larger than ${Math.round(nodeHttp.maxHeaderSize / 1024)} KiB`,
    );
  }
  return new HttpError(400, CLIENT_ERROR_CODES.malformed, "malformed HTTP request");
}

/** True when the packet starts a request whose line (method, URL, version) runs past MAX_URL_BYTES. */
function requestLineTooLong(packet: unknown): boolean {
  if (!Buffer.isBuffer(packet) || !/^[A-Z]+ /.test(packet.subarray(0, 16).toString("latin1"))) return false;
  const end = packet.indexOf("\r\n");
  return end < 0 || end > MAX_URL_BYTES;
}

/** Fastify's `clientErrorHandler`: answers in the error shape, then closes the connection. */
export function clientErrorHandler(err: ParserError, socket: Socket): void {
  // A reset connection has no one to answer.
  if (err.code === "ECONNRESET" || socket.destroyed) return;
  const answer = clientErrorAnswer(err);
  if (socket.writable) {
    const body = JSON.stringify({ error: answer.message, code: answer.code });
    socket.write(
      `HTTP/1.1 ${answer.status} ${nodeHttp.STATUS_CODES[answer.status]}\r\n` +
        `Content-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\n` +
        `Connection: close\r\n\r\n${body}`,
    );
  }
  socket.destroy();
}

/** URLs the parser accepted but that are over MAX_URL_BYTES: 414, before any route's work. */
export function registerUrlLimit(app: FastifyInstance): void {
  app.addHook("onRequest", async (request, reply) => {
    // Node reads the URL's bytes as latin1: its length is its size in bytes.
    if ((request.raw.url ?? "").length > MAX_URL_BYTES) return sendError(reply, urlTooLong());
  });
}

/** A control character (C0 or DEL): never part of an id, a key or a name in a path. */
// eslint-disable-next-line no-control-regex -- control characters are what it looks for
const CONTROL = /[\u0000-\u001f\u007f]/;

/**
 * What PostgreSQL cannot take in a query's value, refused before any route's work (decisions.md
 * "Runs under faults"; a 500 if it got that far): a path parameter (an id, a key, a prop's
 * name) holding a NUL or another control character is a 404 (nothing is ever named so), a NUL
 * in the query string a 400. An endpoint's request (`/e/:id...`) is the caller's data: its
 * query and the rest of its path (`*`) are left alone. (A NUL in a JSON body: http/app.ts.)
 */
export function registerInputGuard(app: FastifyInstance): void {
  app.addHook("onRequest", async (request, reply) => {
    // Such a byte can only come percent-encoded: most URLs are passed over at once.
    const url = request.raw.url ?? "";
    if (!url.includes("%")) return;
    const params = request.params as Record<string, unknown> | undefined;
    for (const [name, value] of Object.entries(params ?? {})) {
      if (name === "*" || typeof value !== "string" || !CONTROL.test(value)) continue;
      return sendError(reply, new HttpError(404, ERROR_CODES.notFound, `${name} ${JSON.stringify(value)} not found`));
    }
    const query = url.indexOf("?");
    if (query >= 0 && url.includes("%00", query) && !request.routeOptions.url?.startsWith("/e/"))
      return sendError(reply, new HttpError(400, ERROR_CODES.badRequest, "a query parameter holds a NUL character"));
  });
}

/**
 * Fastify's `frameworkErrors`: errors its router raises before any route or hook runs. Those that
 * are the client's (a URL that cannot be percent-decoded, a path segment over the router's
 * maxParamLength) are answered in the error shape instead of Fastify's own; any other (a failing
 * async route constraint) is the server's fault and takes the error model's path: logged, 500.
 */
export function frameworkErrorHandler(err: FastifyError, request: FastifyRequest, reply: FastifyReply): void {
  if (err.code === "FST_ERR_BAD_URL") {
    void sendError(reply, new HttpError(400, CLIENT_ERROR_CODES.malformedUrl, "the URL's percent-encoding is malformed"));
    return;
  }
  if (err.code === "FST_ERR_MAX_PARAM_LENGTH") {
    void sendError(reply, new HttpError(414, CLIENT_ERROR_CODES.urlTooLong, "a segment of the URL's path is too long"));
    return;
  }
  void answerError(err, request, reply);
}
