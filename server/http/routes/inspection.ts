/**
 * Event inspection endpoints (decisions.md "Event inspection"): replay of a source's or
 * workflow's retained events to their listeners, and per-bucket stats. Search is the `q` of the
 * event lists (routes/events.ts).
 */
import type { FastifyPluginAsync } from "fastify";
import {
  ReplayEventsBody,
  ReplayResult,
  Stats,
  StatsQuery,
  normalizeChannel,
} from "../../../shared/resources/index.js";
import type { EventServices } from "../../events/index.js";
import { route } from "../route.js";
import { asHttp, requireOwnEmitter } from "./event-guards.js";
import { Data, IdParams } from "../schemas.js";

export const inspectionRoutes: FastifyPluginAsync<{ events: EventServices }> = async (app, { events }) => {
  const tags = ["events"];
  const kinds = [
    { prefix: "dc_", path: "sources", what: "source" },
    { prefix: "p_", path: "workflows", what: "workflow" },
  ] as const;

  for (const kind of kinds) {
    const requireOwn = (userId: string, id: string) => requireOwnEmitter(events, userId, id, kind.prefix);

    route(
      app,
      {
        method: "POST",
        url: `/${kind.path}/:id/events/replay`,
        summary: `Deliver a ${kind.what}'s retained events (start_id..end_id of a channel, inclusive; all by default) again to its listeners, or to listener_id only; answers once they are queued`,
        tags,
        params: IdParams,
        body: ReplayEventsBody,
        status: 202,
        errors: [429],
        response: Data(ReplayResult),
      },
      async ({ params, body, user }) => {
        await requireOwn(user.id, params.id);
        const result = await asHttp(() =>
          events.replay({
            emitterId: params.id,
            ownerId: user.id,
            channel: normalizeChannel(body.event_name),
            startId: body.start_id,
            endId: body.end_id,
            listenerId: body.listener_id,
          }),
        );
        return { data: result };
      },
    );

    route(
      app,
      {
        method: "GET",
        url: `/${kind.path}/:id/stats`,
        summary: `Events, errors, logs, invocations and compute ms of a ${kind.what} per bucket (default: the last hour by minute), oldest first`,
        tags,
        params: IdParams,
        query: StatsQuery,
        response: Data(Stats),
      },
      async ({ params, query, user }) => {
        await requireOwn(user.id, params.id);
        return { data: await asHttp(() => events.stats(params.id, query)) };
      },
    );
  }
};
