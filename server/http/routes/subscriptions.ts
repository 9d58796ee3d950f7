/**
 * Subscriptions (spec §4 "Subscriptions", decisions.md): parameters in the query string or the
 * JSON body; `event_name` absent or `default` is the default channel "".
 */
import type { FastifyPluginAsync } from "fastify";
import { z } from "zod";
import * as mini from "../../../shared/zod.js";
import {
  AutoSubscription,
  AutoSubscriptionParams,
  Subscription,
  SubscriptionParams,
} from "../../../shared/resources/index.js";
import { ParticipantNotFoundError, type SubscriptionService } from "../../delivery/subscriptions.js";
import { notFound, parseOr400 } from "../errors.js";
import { route } from "../route.js";
import { Data } from "../schemas.js";

/**
 * Each parameter may come in the query string or the JSON body (the body wins), so both styles
 * of client work: each part is checked on its own, then the merge must be complete.
 */
const SubParts = mini.partial(SubscriptionParams);
const AutoParts = mini.partial(AutoSubscriptionParams);

function params(query: object | undefined, body: object | undefined) {
  return { ...(query ?? {}), ...(body ?? {}) };
}

async function orNotFound<T>(fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    if (err instanceof ParticipantNotFoundError) throw notFound(err.message.replace(/ not found$/, ""));
    throw err;
  }
}

export const subscriptionRoutes: FastifyPluginAsync<{ subscriptions: SubscriptionService }> = async (
  app,
  { subscriptions },
) => {
  const tags = ["subscriptions"];

  route(
    app,
    {
      method: "POST",
      url: "/subscriptions",
      summary: "Route events of an emitter (or p_* / dc_*) to a listener",
      tags,
      query: SubParts,
      body: SubParts,
      response: Data(Subscription),
    },
    async ({ query, body, user }) => {
      const p = parseOr400(SubscriptionParams, params(query, body), "query");
      return { data: await orNotFound(() => subscriptions.subscribe(user.id, p)) };
    },
  );

  route(
    app,
    {
      method: "DELETE",
      url: "/subscriptions",
      summary: "Delete a subscription (404 when none matched)",
      tags,
      query: SubParts,
      body: SubParts,
      status: 204,
    },
    async ({ query, body, user }) => {
      const p = parseOr400(SubscriptionParams, params(query, body), "query");
      if (!(await subscriptions.unsubscribe(user.id, p))) throw notFound("subscription");
      return undefined;
    },
  );

  route(
    app,
    {
      method: "POST",
      url: "/auto_subscriptions",
      summary: "Subscribe a listener to a channel of every source or workflow created later",
      tags,
      query: AutoParts,
      body: AutoParts,
      response: Data(AutoSubscription),
    },
    async ({ query, body, user }) => {
      const p = parseOr400(AutoSubscriptionParams, params(query, body), "query");
      return { data: await orNotFound(() => subscriptions.autoSubscribe(user.id, p)) };
    },
  );

  route(
    app,
    {
      method: "GET",
      url: "/users/me/subscriptions",
      summary: "Every subscription of the authenticated user",
      tags,
      response: Data(z.array(Subscription)),
    },
    async ({ user }) => ({ data: await subscriptions.list(user.id) }),
  );
};
