/** Event lists and deletes (spec §4 "Events of a source", "Workflows"; decisions.md "Events"). */
import type { FastifyPluginAsync } from "fastify";
import { z } from "zod";
import * as mini from "../../../shared/zod.js";
import {
  DeleteEventsQuery,
  EventListQuery,
  EventSummary,
  Page,
  normalizeChannel,
} from "../../../shared/resources/index.js";
import type { EventServices } from "../../events/index.js";
import { route } from "../route.js";
import { asHttp, requireOwnEmitter, type EmitterPrefix } from "./event-guards.js";
import { Data, IdParams } from "../schemas.js";

export const eventRoutes: FastifyPluginAsync<{ events: EventServices }> = async (app, { events }) => {
  const tags = ["events"];

  const requireOwn = (userId: string, id: string, prefix: EmitterPrefix) =>
    requireOwnEmitter(events, userId, id, prefix);

  const list = (prefix: "dc_" | "p_", fixedChannel?: string) =>
    async ({ params, query, user }: { params: { id: string }; query: z.infer<typeof EventListQuery>; user: { id: string } }) => {
      await requireOwn(user.id, params.id, prefix);
      const channel = fixedChannel ?? normalizeChannel(query.event_name);
      return asHttp(() =>
        events.list(params.id, channel, {
          limit: query.limit,
          after: query.after,
          before: query.before,
          expand: query.expand === "event",
          q: query.q,
        }),
      );
    };

  route(
    app,
    {
      method: "GET",
      url: "/sources/:id/event_summaries",
      summary: "The last events of a source, newest first (event_name selects a channel, q searches data and summary)",
      tags,
      params: IdParams,
      query: EventListQuery,
      response: Page(EventSummary),
    },
    list("dc_"),
  );

  route(
    app,
    {
      method: "DELETE",
      url: "/sources/:id/events",
      summary: "Delete a source's events from start_id to end_id, inclusive (either optional)",
      tags,
      params: IdParams,
      query: DeleteEventsQuery,
      status: 202,
      response: Data(z.object({ accepted: z.boolean() })),
    },
    async ({ params, query, user }) => {
      await requireOwn(user.id, params.id, "dc_");
      await asHttp(() => events.deleteRange(params.id, normalizeChannel(query.event_name), query.start_id, query.end_id));
      return { data: { accepted: true } };
    },
  );

  route(
    app,
    {
      method: "GET",
      url: "/workflows/:id/event_summaries",
      summary: "The last events a workflow emitted, newest first",
      tags,
      params: IdParams,
      query: EventListQuery,
      response: Page(EventSummary),
    },
    list("p_"),
  );

  route(
    app,
    {
      method: "GET",
      url: "/workflows/:id/$errors/event_summaries",
      summary: "The last errors a workflow threw, newest first",
      tags,
      params: IdParams,
      query: mini.omit(EventListQuery, { event_name: true }),
      response: Page(EventSummary),
    },
    list("p_", "$errors"),
  );
};
