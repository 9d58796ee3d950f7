/**
 * `/mcp`: Headwater as an MCP server over Streamable HTTP (decisions.md "Agents (MCP)"), outside
 * /v1. Every request first passes the Origin check (DNS-rebinding protection: a browser page may
 * not drive it unless HEADWATER_MCP_ALLOWED_ORIGINS names its origin) and the bearer key; then:
 *
 *   POST, 2026-07-28 (per-request _meta)  → the SDK's stateless handler (any instance answers)
 *        subscriptions/listen              → a stream with watches of its own (listen.ts)
 *   POST, 2025-11-25                      → the SDK's stateless legacy handler; an initialize
 *                                           answer also gets an Mcp-Session-Id (sessions.ts)
 *   GET / DELETE with Mcp-Session-Id      → that session's notification stream / its end
 *
 * The tool set acts through an in-process client holding the caller's key (inject.ts).
 */
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from "fastify";
import type { ServerResponse } from "node:http";
import { Readable } from "node:stream";
import { createMcpHandler, isLegacyRequest, legacyStatelessFallback, type AuthInfo, type McpServerFactory } from "@modelcontextprotocol/server";
import { ERROR_CODES } from "../../shared/resources/index.js";
import { createHeadwaterMcp } from "../../shared/mcp/index.js";
import { HttpError } from "../http/errors.js";
import { documentRoute } from "../http/route.js";
import { injectedDeps } from "./inject.js";
import { ListenStreams } from "./listen.js";
import { LegacySessions } from "./sessions.js";

export interface McpRouteOptions {
  /** Origins a browser may call /mcp from (exact `scheme://host[:port]`); none by default. */
  allowedOrigins: string[];
  publicUrl: () => string;
  version: string;
}

const SESSION_HEADER = "mcp-session-id";

/** What the factory learns of the caller: their key and id (AuthInfo is the SDK's pass-through). */
const authOf = (key: string, userId: string): AuthInfo => ({ token: key, clientId: userId, scopes: [] });

const jsonRpcError = (reply: FastifyReply, status: number, message: string) =>
  reply.code(status).type("application/json").send({ jsonrpc: "2.0", error: { code: -32000, message }, id: null });

export const mcpRoutes: FastifyPluginAsync<McpRouteOptions> = async (app, o) => {
  const allowed = new Set(o.allowedOrigins);
  const onerror = (err: Error) => app.log.debug({ err }, "mcp");
  const sessions = new LegacySessions();
  const depsFor = (key: string) => injectedDeps(app, key, o.publicUrl);

  // One factory for both eras and both handlers: a fresh instance per request, as the caller.
  const factory: McpServerFactory = ({ era, authInfo, requestInfo }) => {
    if (!authInfo) throw new Error("an MCP request without its caller");
    const sessionId = requestInfo?.headers.get(SESSION_HEADER) ?? undefined;
    return createHeadwaterMcp(depsFor(authInfo.token), {
      version: o.version,
      ...(era === "legacy" ? { legacySubscriptions: sessions.subscriptionsFor(sessionId, authInfo.clientId) } : {}),
    });
  };
  const modern = createMcpHandler(factory, { legacy: "reject", onerror });
  const legacy = legacyStatelessFallback(factory, onerror);
  const listens = new ListenStreams(factory, onerror);

  // Streams never end by themselves: end them when the server stops, or it would wait for them.
  const streams = new Set<ServerResponse>();
  app.addHook("preClose", async () => {
    sessions.close();
    await listens.close();
    await modern.close();
    for (const res of streams) res.destroy();
  });

  /** Origin, then the key: a refusal answered in the error model (401 with WWW-Authenticate). */
  async function admit(request: FastifyRequest, reply: FastifyReply) {
    const origin = request.headers.origin;
    if (origin !== undefined && !allowed.has(origin)) {
      throw new HttpError(403, ERROR_CODES.forbidden, `origin ${origin} may not use /mcp (HEADWATER_MCP_ALLOWED_ORIGINS)`);
    }
    try {
      return await app.authenticate(request);
    } catch (err) {
      if (err instanceof HttpError && err.status === 401) reply.header("www-authenticate", 'Bearer realm="headwater"');
      throw err;
    }
  }

  /** The web Request the SDK reads, aborted when the client goes away before the answer ends. */
  function webRequest(request: FastifyRequest, reply: FastifyReply, body: string | undefined): Request {
    const controller = new AbortController();
    reply.raw.once("close", () => {
      if (!reply.raw.writableFinished) controller.abort();
    });
    const headers = new Headers();
    for (const [k, v] of Object.entries(request.headers)) {
      if (typeof v === "string") headers.set(k, v);
      else if (Array.isArray(v)) headers.set(k, v.join(", "));
    }
    const url = `http://${request.headers.host ?? "localhost"}${request.url}`;
    return new Request(url, { method: request.method, headers, body, signal: controller.signal });
  }

  /** Writes the SDK's answer, streaming its body (SSE) until it or the client ends. */
  async function send(reply: FastifyReply, res: Response, extraHeaders: Record<string, string> = {}) {
    reply.hijack();
    const raw = reply.raw;
    const headers: Record<string, string> = { ...Object.fromEntries(res.headers.entries()), ...extraHeaders };
    raw.writeHead(res.status, headers);
    if (!res.body) {
      raw.end();
      return;
    }
    streams.add(raw);
    const body = Readable.fromWeb(res.body as import("node:stream/web").ReadableStream<Uint8Array>);
    raw.once("close", () => {
      streams.delete(raw);
      body.destroy();
    });
    body.on("error", () => raw.destroy());
    body.pipe(raw);
  }

  // The body is the SDK's to parse (its own limits and JSON-RPC errors): keep it as text here.
  app.removeContentTypeParser("application/json");
  app.addContentTypeParser("application/json", { parseAs: "string" }, (_req, text, done) => done(null, text));

  app.post("/mcp", async (request, reply) => {
    const user = await admit(request, reply);
    const key = authOf((/^Bearer\s+(\S+)/i.exec(request.headers.authorization ?? "") ?? [])[1] ?? "", user.id);
    const text = typeof request.body === "string" ? request.body : undefined;
    let parsed: unknown;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {
      parsed = undefined;
    }
    const method = (parsed as { method?: unknown } | undefined)?.method;
    const req = webRequest(request, reply, text);

    if (method === "subscriptions/listen") {
      return send(reply, await listens.serve(req, parsed, key, depsFor(key.token)));
    }
    if (!(await isLegacyRequest(req, parsed))) {
      return send(reply, await modern.fetch(req, { authInfo: key, ...(parsed !== undefined ? { parsedBody: parsed } : {}) }));
    }
    const sessionId = request.headers[SESSION_HEADER];
    if ((method === "resources/subscribe" || method === "resources/unsubscribe") && typeof sessionId === "string") {
      // A session this instance does not hold (another instance's, or ended): 404, so the client
      // initializes again, as the 2025-11-25 transport says.
      if (!sessions.find(sessionId, user.id)) return jsonRpcError(reply, 404, "unknown Mcp-Session-Id: initialize again");
    }
    const res = await legacy(req, { authInfo: key, ...(parsed !== undefined ? { parsedBody: parsed } : {}) });
    const extra: Record<string, string> = {};
    if (method === "initialize" && res.ok) extra[SESSION_HEADER] = sessions.create(user.id, depsFor(key.token));
    return send(reply, res, extra);
  });

  app.get("/mcp", async (request, reply) => {
    const user = await admit(request, reply);
    const id = request.headers[SESSION_HEADER];
    if (typeof id !== "string") {
      // 2026-07-28 has no GET stream; a 2025-11-25 client opens one only with its session.
      reply.header("allow", "POST, DELETE");
      return jsonRpcError(reply, 405, "GET /mcp needs the Mcp-Session-Id of a 2025-11-25 session (2026-07-28 clients use subscriptions/listen)");
    }
    const session = sessions.find(id, user.id);
    if (!session) return jsonRpcError(reply, 404, "unknown Mcp-Session-Id: initialize again");
    reply.hijack();
    streams.add(reply.raw);
    reply.raw.once("close", () => streams.delete(reply.raw));
    sessions.attachStream(session, reply.raw);
  });

  app.delete("/mcp", async (request, reply) => {
    const user = await admit(request, reply);
    const id = request.headers[SESSION_HEADER];
    if (typeof id !== "string") return jsonRpcError(reply, 400, "DELETE /mcp needs an Mcp-Session-Id");
    if (!sessions.find(id, user.id) || !sessions.end(id)) return jsonRpcError(reply, 404, "unknown Mcp-Session-Id");
    return reply.code(200).send();
  });

  const doc = { tags: ["agents"], contentType: "application/json" } as const;
  documentRoute(app, { ...doc, method: "POST", url: "/mcp", summary: "MCP over Streamable HTTP (protocol revisions 2025-11-25 and 2026-07-28)" });
  documentRoute(app, { ...doc, method: "GET", url: "/mcp", summary: "A 2025-11-25 session's stream of resource notifications (Mcp-Session-Id)", contentType: "text/event-stream" });
  documentRoute(app, { ...doc, method: "DELETE", url: "/mcp", summary: "Ends a 2025-11-25 session (Mcp-Session-Id)" });
};
