/**
 * Tools that connect things: subscriptions (which listener receives which emitter's events) and
 * send_test_event (a request to an endpoint, as an outside caller would send it).
 */
import { z } from "zod";
import { ApiError } from "../../client/index.js";
import { decodeCursor, encodeCursor } from "../../ids.js";
import { endpointOfSource, resolveEmitter } from "../emitters.js";
import { McpRefusal } from "../results.js";
import { SubscriptionOut } from "../schemas.js";
import { CREATE, DESTROY, READ, tool } from "./define.js";

const SubscriptionParams = {
  emitter_id: z
    .string()
    .regex(/^(p|dc)_[A-Za-z0-9*]+$/, "a source or workflow id, or dc_* / p_* for all of them")
    .describe("the emitter: a source (dc_...) or workflow (p_...) id; dc_* or p_* for every one"),
  listener_id: z.string().regex(/^(p|dc)_[A-Za-z0-9]+$/, "a source or workflow id").describe("the listener: a source or workflow id"),
  event_name: z.string().max(128).optional().describe("the emitter's channel (default: the default channel)"),
};

export const listSubscriptions = tool({
  name: "list_subscriptions",
  title: "List subscriptions",
  description: "Which listener receives which emitter's events (and on which channel), for all of the user's sources and workflows.",
  input: {
    limit: z.number().int().min(1).max(100).default(20).describe("items per page, 1 to 100 (default 20)"),
    cursor: z.string().min(1).max(200).optional().describe("`next_cursor` of the previous page"),
  },
  output: { subscriptions: z.array(SubscriptionOut), next_cursor: z.string().nullable(), total_count: z.number() },
  annotations: READ,
  list: { listKey: "subscriptions", cursorAfter: (s) => encodeCursor((s as { id: string }).id) },
  run: async ({ limit, cursor }, { deps }) => {
    // REST answers them all at once; the tool pages them like the other lists.
    const all = await deps.client.listMySubscriptions();
    let start = 0;
    if (cursor !== undefined) {
      const afterId = decodeCursor(cursor);
      const at = all.findIndex((s) => s.id === afterId);
      if (at < 0) throw new McpRefusal("bad_cursor", "cursor is not one of this list's");
      start = at + 1;
    }
    const page = all.slice(start, start + limit);
    const more = start + limit < all.length;
    return { subscriptions: page, next_cursor: more ? encodeCursor(page[page.length - 1]!.id) : null, total_count: all.length };
  },
});

export const subscribe = tool({
  name: "subscribe",
  title: "Subscribe a listener",
  description:
    "Makes listener_id receive emitter_id's events (on event_name's channel) from now on: a workflow runs its steps, a source its run(). Subscribing again changes nothing. Past events can be sent to it with replay_events.",
  input: SubscriptionParams,
  output: { subscription: SubscriptionOut },
  annotations: { ...CREATE, idempotentHint: true },
  run: async (a, { deps }) => ({ subscription: await deps.client.createSubscription(a) }),
});

export const unsubscribe = tool({
  name: "unsubscribe",
  title: "Unsubscribe a listener",
  description: "Stops listener_id receiving emitter_id's events (on event_name's channel). Events already delivered stay where they are.",
  input: SubscriptionParams,
  output: { deleted: z.literal(true) },
  annotations: DESTROY,
  run: async (a, { deps }) => {
    await deps.client.deleteSubscription(a);
    return { deleted: true as const };
  },
});

/** How long send_test_event waits for the endpoint's answer. */
const ENDPOINT_TIMEOUT_MS = 30_000;

export const sendTestEvent = tool({
  name: "send_test_event",
  title: "Send a test request to an endpoint",
  description:
    "Sends an HTTP request to a source's (or workflow's) endpoint_url, as an outside caller would, and answers the endpoint's status, headers and body. The source then runs with it as its event: follow up with wait_for_events. `body` may be a string or JSON (sent as application/json).",
  input: {
    id: z.string().min(1).max(200).describe("source id (dc_...), workflow id (p_...) or the name of either"),
    method: z.enum(["GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS"]).default("POST"),
    path: z
      .string()
      .max(2000)
      .regex(/^\/[^\s#]*$/, "a path starting with /")
      .default("/")
      .describe("appended to the endpoint URL (may hold a query string)"),
    headers: z.record(z.string().regex(/^[A-Za-z0-9!#$%&'*+.^_`|~-]+$/), z.string().max(8192)).optional(),
    body: z.unknown().optional().describe("the request body: a string as is, anything else as JSON"),
  },
  output: { endpoint_url: z.string(), status: z.number(), headers: z.record(z.string(), z.string()), body: z.string() },
  annotations: { ...CREATE, openWorldHint: false },
  run: async (a, { deps, signal }) => {
    const e = await resolveEmitter(deps.client, a.id);
    const endpoint =
      e.kind === "source" ? endpointOfSource(await deps.client.getSource(e.id)) : (await deps.client.getWorkflow(e.id)).endpoint_url;
    if (!endpoint) throw new McpRefusal("bad_request", `source ${e.id} has no HTTP endpoint (its component has no $.interface.http prop)`);
    const headers: Record<string, string> = { ...a.headers };
    let body: string | undefined;
    if (a.body !== undefined && a.method !== "GET" && a.method !== "HEAD") {
      body = typeof a.body === "string" ? a.body : JSON.stringify(a.body);
      const hasType = Object.keys(headers).some((h) => h.toLowerCase() === "content-type");
      if (!hasType) headers["content-type"] = typeof a.body === "string" ? "text/plain; charset=utf-8" : "application/json";
    }
    const url = endpoint.replace(/\/+$/, "") + (a.path === "/" ? "" : a.path);
    try {
      const res = await deps.sendToEndpoint(url, {
        method: a.method,
        headers,
        body,
        signal: AbortSignal.any([signal, AbortSignal.timeout(ENDPOINT_TIMEOUT_MS)]),
      });
      return { endpoint_url: endpoint, ...res };
    } catch (err) {
      if (err instanceof ApiError || err instanceof McpRefusal) throw err;
      const reason = err instanceof Error ? err.message : String(err);
      throw new McpRefusal("endpoint_unreachable", `the endpoint did not answer: ${reason}`, 502);
    }
  },
});

