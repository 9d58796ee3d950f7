/**
 * The Fastify instance with the cross-cutting plugins every route relies on: the error model,
 * body limits and the route registry (authentication is `registerAuth`, once users exist).
 * Route plugins are registered by app.ts.
 */
import type http from "node:http";
import { nodeHttp } from "../../shared/node-http.js";
import type { Socket } from "node:net";
import Fastify, { LogController, type FastifyInstance, type FastifyServerOptions } from "fastify";
import type { Config } from "../config.js";
import { clientErrorHandler, frameworkErrorHandler, MAX_PATH_PARAM, registerInputGuard, registerUrlLimit } from "./client-errors.js";
import { HttpError, registerErrorModel, sendError } from "./errors.js";
import { ERROR_CODES } from "../../shared/resources/index.js";
import { hasEscapedNul } from "../store/storable-text.js";
import { registerLeakGuard } from "./leak-guard.js";
import { registerOverLimitDrain } from "./over-limit.js";
import { registerRequestMetrics } from "./request-metrics.js";
import { registerRouteRegistry } from "./route.js";

/**
 * A handler that may answer a request before Fastify sees it (the endpoints' ingest path,
 * server/runtime/triggers/http-fast.ts). It returns false, having touched nothing, for any
 * request it does not take: Fastify then handles that request as usual.
 */
export type FastPath = (req: http.IncomingMessage, res: http.ServerResponse) => boolean;

const fastPaths = new WeakMap<FastifyInstance, (fast: FastPath) => void>();

/**
 * Each server's connections that have not sent a request yet. Node 20 and 22's
 * closeIdleConnections() leave those open (Node 24 closes them), so a stop waited until the
 * client gave up on them: `headwater dev` stopping its local server took 4 to 10 s, the time
 * undici keeps a connection it opened and never used.
 */
const unusedConnections = new WeakMap<http.Server, Set<Socket>>();

/** Sets the app's fast path (once its routes' dependencies exist). */
export function setFastPath(app: FastifyInstance, fast: FastPath): void {
  const set = fastPaths.get(app);
  if (!set) throw new Error("setFastPath: not an app of createHttpApp");
  set(fast);
}

/** The app with the error model and route registry; call `registerAuth` before adding routes. */
export function createHttpApp(config: Config): FastifyInstance {
  let fast: FastPath | undefined;
  let closing = false;
  // Request logs (debug) are Fastify's: no request goes around it then.
  const fastPathAllowed = config.logLevel !== "debug" && config.logLevel !== "trace";
  const app = Fastify({
    // Fastify's own server, with the fast path in front of its handler; the timeouts Fastify
    // would set on a server it made itself.
    serverFactory: (handler, opts: FastifyServerOptions) => {
      const unused = new Set<Socket>();
      const server = nodeHttp.createServer((req, res) => {
        unused.delete(req.socket);
        if (fast && !closing && fast(req, res)) return;
        handler(req, res);
      });
      server.on("connection", (socket: Socket) => {
        unused.add(socket);
        socket.once("close", () => unused.delete(socket));
      });
      unusedConnections.set(server, unused);
      server.keepAliveTimeout = opts.keepAliveTimeout ?? 72_000;
      server.requestTimeout = opts.requestTimeout ?? 0;
      server.setTimeout(opts.connectionTimeout ?? 0);
      return server;
    },
    logger: { level: config.logLevel },
    bodyLimit: config.bodyLimitBytes,
    // `/sources/` and `/sources` are the same endpoint (the spec writes both). A path segment
    // holds up to MAX_PATH_PARAM characters: a data store record's key (256 bytes of UTF-8) is
    // one segment, percent-encoded.
    routerOptions: { ignoreTrailingSlash: true, maxParamLength: MAX_PATH_PARAM },
    // One line per request only when debugging (request logs never include headers or keys).
    logController: new LogController({
      disableRequestLogging: config.logLevel !== "debug" && config.logLevel !== "trace",
    }),
    // While closing, new requests get our own 503 (below), in the error model's shape.
    return503OnClosing: false,
    // Requests Node's parser refuses (headers too large, a malformed request line) too, and
    // those the router refuses before any route (a URL that cannot be decoded).
    clientErrorHandler,
    frameworkErrors: frameworkErrorHandler,
  });
  registerErrorModel(app);
  registerLeakGuard(app, config.dataDir);
  registerOverLimitDrain(app);
  registerRequestMetrics(app);
  registerUrlLimit(app);
  registerInputGuard(app);
  // An empty body sent as JSON (many HTTP clients set the header on every POST) is no body,
  // not a malformed one; anything else goes through Fastify's parser (prototype-poisoning checks).
  const parseJson = app.getDefaultJsonParser("error", "error");
  app.removeContentTypeParser("application/json");
  app.addContentTypeParser("application/json", { parseAs: "string" }, (request, body, done) => {
    const text = typeof body === "string" ? body : body.toString("utf8");
    if (text.trim() === "") return done(null, undefined);
    // PostgreSQL cannot store a NUL (nor take one in a query): refused here, not a 500 later.
    if (hasEscapedNul(text))
      return done(new HttpError(400, ERROR_CODES.badRequest, "a string in the body holds a NUL character (\\u0000)"));
    parseJson(request, text, done);
  });
  if (fastPathAllowed) fastPaths.set(app, (f) => (fast = f));
  else fastPaths.set(app, () => undefined);
  app.addHook("preClose", async () => {
    closing = true;
  });
  app.addHook("onRequest", async (_request, reply) => {
    if (!closing) return;
    reply.header("connection", "close");
    return sendError(reply, new HttpError(503, "unavailable", "the server is stopping"));
  });
  registerRouteRegistry(app);
  return app;
}

/**
 * Stops the HTTP server: no new requests (503 while closing), in-flight ones finish. Keep-alive
 * connections are closed as soon as they go idle (Node closes only those idle at the start),
 * connections that never sent a request at once, and whatever is still open after `graceMs`
 * (a stuck stream) is cut.
 */
export async function closeGracefully(app: FastifyInstance, graceMs = 10_000): Promise<void> {
  const server = app.server;
  const unused = unusedConnections.get(server);
  const sweepIdle = () => {
    server.closeIdleConnections();
    for (const socket of unused ?? []) socket.destroy();
  };
  sweepIdle();
  const sweep = setInterval(sweepIdle, 50);
  const deadline = setTimeout(() => server.closeAllConnections(), graceMs);
  try {
    await app.close();
  } finally {
    clearInterval(sweep);
    clearTimeout(deadline);
  }
}
