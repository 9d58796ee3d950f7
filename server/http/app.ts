/**
 * The Fastify instance with the cross-cutting plugins every route relies on: the error model,
 * body limits and the route registry (authentication is `registerAuth`, once users exist).
 * Route plugins are registered by app.ts.
 */
import Fastify, { LogController, type FastifyInstance } from "fastify";
import type { Config } from "../config.js";
import { clientErrorHandler, frameworkErrorHandler, registerUrlLimit } from "./client-errors.js";
import { HttpError, registerErrorModel, sendError } from "./errors.js";
import { registerLeakGuard } from "./leak-guard.js";
import { registerOverLimitDrain } from "./over-limit.js";
import { registerRequestMetrics } from "./request-metrics.js";
import { registerRouteRegistry } from "./route.js";

/** The app with the error model and route registry; call `registerAuth` before adding routes. */
export function createHttpApp(config: Config): FastifyInstance {
  const app = Fastify({
    logger: { level: config.logLevel },
    bodyLimit: config.bodyLimitBytes,
    // `/sources/` and `/sources` are the same endpoint (the spec writes both).
    routerOptions: { ignoreTrailingSlash: true },
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
  // An empty body sent as JSON (many HTTP clients set the header on every POST) is no body,
  // not a malformed one; anything else goes through Fastify's parser (prototype-poisoning checks).
  const parseJson = app.getDefaultJsonParser("error", "error");
  app.removeContentTypeParser("application/json");
  app.addContentTypeParser("application/json", { parseAs: "string" }, (request, body, done) => {
    const text = typeof body === "string" ? body : body.toString("utf8");
    if (text.trim() === "") return done(null, undefined);
    parseJson(request, text, done);
  });
  let closing = false;
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
 * and whatever is still open after `graceMs` (a stuck stream) is cut.
 */
export async function closeGracefully(app: FastifyInstance, graceMs = 10_000): Promise<void> {
  const server = app.server;
  const sweep = setInterval(() => server.closeIdleConnections(), 50);
  const deadline = setTimeout(() => server.closeAllConnections(), graceMs);
  try {
    await app.close();
  } finally {
    clearInterval(sweep);
    clearTimeout(deadline);
  }
}
