/**
 * `/mcp`: Headwater as an MCP server over Streamable HTTP (decisions.md "Agents (MCP)"), outside
 * /v1, beside /healthz. Every request first passes the Origin check (DNS-rebinding protection: a
 * browser page may not drive it unless HEADWATER_MCP_ALLOWED_ORIGINS names its origin), then the
 * bearer key (401 with `WWW-Authenticate: Bearer`, 403 for a disabled user), both in the API's
 * error model; what follows is endpoint.ts's.
 *
 * The MCP SDK and the tool set load on the first request to /mcp (endpoint.ts), not at start:
 * a server nobody drives from an agent does not pay for building their schemas.
 */
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from "fastify";
import { ERROR_CODES } from "../../shared/resources/index.js";
import { HttpError } from "../http/errors.js";
import { documentRoute } from "../http/route.js";
import type { McpEndpoint } from "./endpoint.js";

export interface McpRouteOptions {
  /** Origins a browser may call /mcp from (exact `scheme://host[:port]`); none by default. */
  allowedOrigins: string[];
  /** The base of endpoint URLs (send_test_event answers only this server's). */
  publicUrl: () => string;
  version: string;
}

export const mcpRoutes: FastifyPluginAsync<McpRouteOptions> = async (app, o) => {
  const allowed = new Set(o.allowedOrigins);
  let endpoint: Promise<McpEndpoint> | undefined;
  const load = () =>
    (endpoint ??= import("./endpoint.js").then(({ createMcpEndpoint }) => createMcpEndpoint(app, o)));
  app.addHook("preClose", async () => {
    if (endpoint) await (await endpoint).close();
  });

  /** Origin, then the key. */
  async function admit(request: FastifyRequest, reply: FastifyReply) {
    const origin = request.headers.origin;
    if (origin !== undefined && !allowed.has(origin)) {
      throw new HttpError(403, ERROR_CODES.forbidden, `origin ${origin} may not use /mcp (HEADWATER_MCP_ALLOWED_ORIGINS)`);
    }
    try {
      const user = await app.authenticate(request);
      const key = /^Bearer\s+(\S+)\s*$/i.exec(request.headers.authorization ?? "")![1]!;
      return { user, key };
    } catch (err) {
      if (err instanceof HttpError && err.status === 401) reply.header("www-authenticate", 'Bearer realm="headwater"');
      throw err;
    }
  }

  // The body is the SDK's to parse (its own limits and JSON-RPC errors): kept as text here.
  app.removeContentTypeParser("application/json");
  app.addContentTypeParser("application/json", { parseAs: "string" }, (_req, text, done) => done(null, text));

  app.post("/mcp", async (request, reply) => {
    const caller = await admit(request, reply);
    return (await load()).post(request, reply, caller);
  });
  app.get("/mcp", async (request, reply) => {
    const caller = await admit(request, reply);
    return (await load()).get(request, reply, caller);
  });
  app.delete("/mcp", async (request, reply) => {
    const caller = await admit(request, reply);
    return (await load()).delete(request, reply, caller);
  });

  const doc = { tags: ["agents"], contentType: "application/json" } as const;
  documentRoute(app, { ...doc, method: "POST", url: "/mcp", summary: "MCP over Streamable HTTP (protocol revisions 2025-11-25 and 2026-07-28): see docs/agents.md" });
  documentRoute(app, { ...doc, method: "GET", url: "/mcp", summary: "A 2025-11-25 session's stream of resource notifications (with its Mcp-Session-Id)", contentType: "text/event-stream" });
  documentRoute(app, { ...doc, method: "DELETE", url: "/mcp", summary: "Ends a 2025-11-25 session (with its Mcp-Session-Id)" });
};
