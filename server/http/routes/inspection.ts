/**
 * Event inspection endpoints (decisions.md "Event inspection"): replay of a source's or
 * workflow's retained events to their listeners, and per-bucket stats. Search is the `q` of the
 * event lists (routes/events.ts).
 */
import type { FastifyPluginAsync } from "fastify";
import {
  ERROR_CODES,
  ReplayEventsBody,
  ReplayResult,
  Stats,
  StatsQuery,
  normalizeChannel,
} from "../../../shared/resources/index.js";
import type { EventServices } from "../../events/index.js";
import { EventQueryError } from "../../events/reads.js";
import { ReplayListenerError } from "../../events/replay.js";
import { badRequest, notFound } from "../errors.js";
import { route } from "../route.js";
import { Data, IdParams } from "../schemas.js";

/** The events module's refusals as 4xx. */
async function asHttp<T>(fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    if (err instanceof EventQueryError) throw badRequest(err.message, ERROR_CODES.badRequest);
    if (err instanceof ReplayListenerError) throw notFound(err.message);
    throw err;
  }
}

export const inspectionRoutes: FastifyPluginAsync<{ events: EventServices }> = async (app, { events }) => {
  const tags = ["events"];
  const kinds = [
    { prefix: "dc_", path: "sources", what: "source" },
    { prefix: "p_", path: "workflows", what: "workflow" },
  ] as const;

  for (const kind of kinds) {
    const requireOwn = async (userId: string, id: string) => {
      if (!id.startsWith(kind.prefix) || !(await events.owns(userId, id))) throw notFound(`${kind.what} ${id}`);
    };

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
