/**
 * Server-sent-event streams of a source (decisions.md "Server-sent events"), at the host
 * without `/v1`: `/sources/{id}/sse` and its alias `/sse/dc/{id}/emits` stream the default
 * channel; `/sse/dc/{id}/observations` streams `$logs` and `$errors`. `/workflows/{id}/sse`
 * streams a workflow's emits the same way (what MCP's wait_for_events and resource
 * subscriptions follow). Same Bearer header as the API (the dashboard proxies through its host,
 * so no key in the URL is needed).
 */
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from "fastify";
import { ERROR_CODES } from "../../../shared/resources/index.js";
import type { EventServices } from "../../events/index.js";
import { EventQueryError, sortKeyOf } from "../../events/reads.js";
import type { Db } from "../../store/db.js";
import { runEventStream } from "../../streams/event-stream.js";
import { openStreams, startSse } from "../../streams/sse-response.js";
import { badRequest, notFound } from "../errors.js";
import { documentRoute } from "../route.js";

export interface StreamRouteOptions {
  events: EventServices;
  db: Db;
  heartbeatMs?: number;
  maxBufferedBytes?: number;
}

export const streamRoutes: FastifyPluginAsync<StreamRouteOptions> = async (app, o) => {
  // Open streams never end by themselves: they are closed when the server stops, or it would wait.
  const streams = openStreams(app);

  const open = (channels: string[], prefix: "dc_" | "p_" = "dc_") => async (request: FastifyRequest<{ Params: { id: string }; Querystring: Record<string, unknown> }>, reply: FastifyReply) => {
    const user = await app.authenticate(request);
    const id = request.params.id;
    if (!id.startsWith(prefix) || !(await o.events.owns(user.id, id))) {
      throw notFound(`${prefix === "dc_" ? "source" : "workflow"} ${id}`);
    }

    const header = request.headers["last-event-id"];
    const fromQuery = request.query.last_event_id;
    const lastEventId = (typeof header === "string" && header.trim()) || (typeof fromQuery === "string" ? fromQuery : undefined);
    let afterSortKey: string | undefined;
    try {
      afterSortKey = lastEventId ? sortKeyOf(lastEventId, "Last-Event-ID") : undefined;
    } catch (err) {
      if (err instanceof EventQueryError) throw badRequest(err.message, ERROR_CODES.badRequest);
      throw err;
    }

    const res = await startSse(reply, streams);
    if (res.destroyed) return; // the client left before the stream began
    runEventStream(res, {
      db: o.db,
      bus: o.events.bus,
      emitterId: id,
      channels,
      afterSortKey,
      heartbeatMs: o.heartbeatMs,
      maxBufferedBytes: o.maxBufferedBytes,
    });
  };

  app.get("/sources/:id/sse", open([""]));
  app.get("/sse/dc/:id/emits", open([""]));
  app.get("/sse/dc/:id/observations", open(["$logs", "$errors"]));
  app.get("/workflows/:id/sse", open([""], "p_"));
  const sse = { method: "GET", tags: ["events"], contentType: "text/event-stream" } as const;
  documentRoute(app, { ...sse, url: "/sources/:id/sse", summary: "Live stream of a source's emits (SSE, resumable)" });
  documentRoute(app, { ...sse, url: "/sse/dc/:id/emits", summary: "Alias of /sources/{id}/sse" });
  documentRoute(app, { ...sse, url: "/sse/dc/:id/observations", summary: "Live stream of a source's $logs and $errors" });
  documentRoute(app, { ...sse, url: "/workflows/:id/sse", summary: "Live stream of a workflow's emits (SSE, resumable)" });
};
