/**
 * What `/mcp` does once a caller is admitted (route.ts), on the MCP SDK:
 *
 *   POST, tools/call (plainly valid)      → the tool, run directly (direct-call.ts): any
 *                                           2026-07-28 call, a 2025-11-25 call of a read
 *   POST, 2026-07-28 (per-request _meta)  → the SDK's stateless handler: any instance answers
 *        subscriptions/listen              → a stream with watches of its own (listen.ts)
 *   POST, 2025-11-25                      → the SDK's stateless legacy handler; an initialize
 *                                           answer also gets an Mcp-Session-Id (sessions.ts)
 *   GET / DELETE with Mcp-Session-Id      → that session's notification stream / its end
 *
 * One factory makes every instance, per request, for the caller: the tool set acts through an
 * in-process client holding the caller's key (inject.ts), kept from call to call (caller-deps.ts).
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import type { ServerResponse } from "node:http";
import { Readable } from "node:stream";
import type { ReadableStream as WebReadableStream } from "node:stream/web";
import { createMcpHandler, isLegacyRequest, legacyStatelessFallback, type AuthInfo, type McpServerFactory } from "@modelcontextprotocol/server";
import { createHeadwaterMcp } from "../../shared/mcp/index.js";
import type { McpDeps } from "../../shared/mcp/index.js";
import { CallerDeps, type Caller } from "./caller-deps.js";
import { answerDirectCall, directCallOf } from "./direct-call.js";
import { ListenStreams } from "./listen.js";
import type { McpRouteOptions } from "./route.js";
import { LegacySessions } from "./sessions.js";

const SESSION_HEADER = "mcp-session-id";
/** What the SDK's stateless 2025-11-25 transport sends with an SSE answer. */
const SSE_HEADERS = { "cache-control": "no-cache, no-transform", "x-accel-buffering": "no" };

export interface McpEndpoint {
  post(request: FastifyRequest, reply: FastifyReply, caller: Caller): Promise<unknown>;
  get(request: FastifyRequest, reply: FastifyReply, caller: Caller): Promise<unknown>;
  delete(request: FastifyRequest, reply: FastifyReply, caller: Caller): Promise<unknown>;
  close(): Promise<void>;
}

/**
 * What the factory learns of the caller (AuthInfo is the SDK's pass-through): key, user id and
 * deps, and the tool a `tools/call` names (its instance registers that tool alone).
 */
function authOf(c: Caller, deps: McpDeps, body: unknown): AuthInfo {
  const call = body as { method?: unknown; params?: { name?: unknown } } | undefined;
  const tool = call?.method === "tools/call" && typeof call.params?.name === "string" ? call.params.name : undefined;
  return { token: c.key, clientId: c.user.id, scopes: [], extra: { deps, ...(tool ? { tool } : {}) } };
}

const jsonRpcError = (reply: FastifyReply, status: number, message: string) =>
  reply.code(status).type("application/json").send({ jsonrpc: "2.0", error: { code: -32000, message }, id: null });

export function createMcpEndpoint(app: FastifyInstance, o: McpRouteOptions): McpEndpoint {
  const onerror = (err: Error) => app.log.debug({ err }, "mcp");
  const sessions = new LegacySessions();
  // Aborted at close: a tool still waiting (wait_for_events) answers at once.
  const lifetime = new AbortController();
  const callers = new CallerDeps(app, o.publicUrl, lifetime.signal);

  const factory: McpServerFactory = ({ era, authInfo, requestInfo }) => {
    const deps = authInfo?.extra?.deps as McpDeps | undefined;
    if (!authInfo || !deps) throw new Error("an MCP request without its caller");
    const sessionId = requestInfo?.headers.get(SESSION_HEADER) ?? undefined;
    const tool = authInfo.extra?.tool;
    return createHeadwaterMcp(deps, {
      version: o.version,
      era,
      ...(typeof tool === "string" ? { onlyTool: tool } : {}),
      ...(era === "legacy" ? { legacySubscriptions: sessions.subscriptionsFor(sessionId, authInfo.clientId) } : {}),
    });
  };
  const modern = createMcpHandler(factory, { legacy: "reject", onerror });
  const legacy = legacyStatelessFallback(factory, onerror);
  const listens = new ListenStreams(factory, onerror);
  // Streams never end by themselves: they are cut when the server stops, or it would wait.
  const streams = new Set<ServerResponse>();

  /** Whether the request names a 2025-11-25 session that has ended here. */
  function endedSession(request: FastifyRequest): boolean {
    const id = request.headers[SESSION_HEADER];
    return typeof id === "string" && sessions.hasEnded(id);
  }

  /** Aborted when the client goes away before the answer ends. */
  function abortedOnHangUp(reply: FastifyReply): AbortSignal {
    const controller = new AbortController();
    reply.raw.once("close", () => {
      if (!reply.raw.writableFinished) controller.abort();
    });
    return controller.signal;
  }

  /** A tool call's signal: aborted when the client goes away, or when the server stops. */
  function callSignal(reply: FastifyReply): AbortSignal {
    const controller = new AbortController();
    const abort = () => controller.abort();
    // (Made when the tool asks for it: the client may have gone already.)
    if (lifetime.signal.aborted || (reply.raw.closed && !reply.raw.writableFinished)) abort();
    else lifetime.signal.addEventListener("abort", abort, { once: true });
    reply.raw.once("close", () => {
      lifetime.signal.removeEventListener("abort", abort);
      if (!reply.raw.writableFinished) abort();
    });
    return controller.signal;
  }

  /** The web Request the SDK reads. */
  function webRequest(request: FastifyRequest, reply: FastifyReply, body: string | undefined): Request {
    const headers = new Headers();
    for (const [k, v] of Object.entries(request.headers)) {
      if (typeof v === "string") headers.set(k, v);
      else if (Array.isArray(v)) headers.set(k, v.join(", "));
    }
    // (The Host header is the client's to write, whatever it holds: the SDK needs no host.)
    const url = new URL(request.url, "http://localhost");
    return new Request(url, { method: request.method, headers, body, signal: abortedOnHangUp(reply) });
  }

  /** Writes the SDK's answer: a JSON body whole, an SSE stream as it comes until it or the client ends. */
  async function send(reply: FastifyReply, res: Response, extraHeaders: Record<string, string> = {}) {
    reply.hijack();
    const raw = reply.raw;
    const headers = { ...Object.fromEntries(res.headers.entries()), ...extraHeaders };
    if (!res.body || !headers["content-type"]?.startsWith("text/event-stream")) {
      // (Read whole: a web stream piped into a Node one costs more than the answer itself.)
      const body = res.body ? Buffer.from(await res.arrayBuffer()) : undefined;
      raw.writeHead(res.status, { ...headers, ...(body ? { "content-length": String(body.length) } : {}) });
      raw.end(body);
      return;
    }
    raw.writeHead(res.status, headers);
    streams.add(raw);
    const body = Readable.fromWeb(res.body as WebReadableStream<Uint8Array>);
    raw.once("close", () => {
      streams.delete(raw);
      body.destroy();
    });
    body.on("error", () => raw.destroy());
    body.pipe(raw);
  }

  return {
    async post(request, reply, caller) {
      const text = typeof request.body === "string" ? request.body : undefined;
      let parsed: unknown;
      try {
        parsed = text ? JSON.parse(text) : undefined;
      } catch {
        parsed = undefined; // the SDK answers the parse error
      }
      const deps = callers.for(caller);
      const direct = directCallOf(parsed, request.headers);
      // (A 2025-11-25 session ended here is the SDK path's 404, below.)
      if (direct && !(direct.era === "legacy" && endedSession(request))) {
        const answer = await answerDirectCall(direct, deps, () => callSignal(reply), o.version);
        if (answer?.contentType === "text/event-stream") reply.headers(SSE_HEADERS);
        if (answer !== undefined) return reply.code(200).type(answer.contentType).send(answer.body);
      }

      const method = (parsed as { method?: unknown } | undefined)?.method;
      const auth = authOf(caller, deps, parsed);
      const req = webRequest(request, reply, text);
      const opts = { authInfo: auth, ...(parsed !== undefined ? { parsedBody: parsed } : {}) };

      if (method === "subscriptions/listen") return send(reply, await listens.serve(req, parsed, auth, deps));
      if (!(await isLegacyRequest(req, parsed))) return send(reply, await modern.fetch(req, opts));

      const sessionId = request.headers[SESSION_HEADER];
      if (typeof sessionId === "string") {
        // A session ended here is a 404 for anything (the 2025-11-25 transport's rule: the client
        // initializes again). One this instance never issued is another instance's: served
        // statelessly like no session, but a subscription needs the session's own instance.
        if (endedSession(request)) return jsonRpcError(reply, 404, "this Mcp-Session-Id has ended: initialize again");
        const subscribing = method === "resources/subscribe" || method === "resources/unsubscribe";
        if (subscribing && !sessions.find(sessionId, caller.user.id)) return jsonRpcError(reply, 404, "unknown Mcp-Session-Id: initialize again");
      }
      const res = await legacy(req, opts);
      const extra: Record<string, string> = {};
      if (method === "initialize" && res.ok) extra[SESSION_HEADER] = sessions.create(caller.user.id, deps);
      return send(reply, res, extra);
    },

    async get(request, reply, caller) {
      const id = request.headers[SESSION_HEADER];
      if (typeof id !== "string") {
        // 2026-07-28 has no GET stream; a 2025-11-25 client opens one only with its session.
        reply.header("allow", "POST, DELETE");
        return jsonRpcError(reply, 405, "GET /mcp needs the Mcp-Session-Id of a 2025-11-25 session (2026-07-28 clients use subscriptions/listen)");
      }
      const session = sessions.find(id, caller.user.id);
      if (!session) return jsonRpcError(reply, 404, "unknown Mcp-Session-Id: initialize again");
      reply.hijack();
      streams.add(reply.raw);
      reply.raw.once("close", () => streams.delete(reply.raw));
      sessions.attachStream(session, reply.raw);
    },

    async delete(request, reply, caller) {
      const id = request.headers[SESSION_HEADER];
      if (typeof id !== "string") return jsonRpcError(reply, 400, "DELETE /mcp needs an Mcp-Session-Id");
      if (!sessions.find(id, caller.user.id) || !sessions.end(id)) return jsonRpcError(reply, 404, "unknown Mcp-Session-Id");
      return reply.code(200).send();
    },

    async close() {
      lifetime.abort();
      callers.clear();
      sessions.close();
      await listens.close();
      await modern.close();
      for (const res of streams) res.destroy();
    },
  };
}
