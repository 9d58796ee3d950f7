/**
 * The tools' output schemas (zod 4, as the MCP SDK takes them). Loose objects: the REST
 * resources carry more fields than a model needs to be told about, and the hosted service's
 * answers may carry others. Every answer may say `truncated` and `note` when it was cut to stay
 * under the result limit (results.ts).
 */
import { z } from "zod";

/** Fields any answer may carry when it was cut (results.ts). */
export const Cut = {
  truncated: z.boolean().optional().describe("true when part of the answer was cut to stay under 64 KB"),
  note: z.string().optional().describe("what was cut, and how to get the rest"),
};

export const PageOut = {
  next_cursor: z.string().nullable().describe("pass as `cursor` for the next page; null on the last page"),
  total_count: z.number().int().describe("items in the whole list"),
};

export const UserOut = z.looseObject({
  id: z.string(),
  username: z.string(),
  email: z.string(),
  admin: z.boolean().optional(),
  daily_invocations_quota: z.number().optional(),
  daily_invocations_used: z.number().optional(),
  daily_compute_time_quota: z.number().optional(),
  daily_compute_time_used: z.number().optional(),
});

export const PropOut = z.looseObject({ name: z.string(), type: z.string() });

export const ComponentOut = z.looseObject({
  id: z.string(),
  key: z.string().optional(),
  name: z.string(),
  version: z.string(),
  description: z.string().nullable().optional(),
  configurable_props: z.array(PropOut).optional(),
  code: z.string().optional(),
});

export const SourceOut = z.looseObject({
  id: z.string(),
  name: z.string(),
  component_id: z.string(),
  active: z.boolean(),
  configured_props: z.record(z.string(), z.unknown()),
  endpoint_url: z.string().optional().describe("the source's HTTP endpoint, when it has one"),
});

export const WorkflowOut = z.looseObject({
  id: z.string(),
  name: z.string(),
  active: z.boolean(),
  endpoint_url: z.string(),
  steps: z.array(z.looseObject({ id: z.string(), name: z.string() })),
});

export const EventOut = z.looseObject({
  id: z.string().describe("the event id, `<ms>-<seq>`: also the cursor and a replay/delete bound"),
  indexed_at_ms: z.number(),
  event: z.unknown().describe("the event's data (over 4 KB in lists: {truncated, size, preview})"),
  metadata: z.looseObject({ name: z.string().optional(), summary: z.string().optional() }),
  truncated: z.boolean().optional().describe("true when `event` is only a preview: get_event gives it whole"),
});

export const SubscriptionOut = z.looseObject({
  id: z.string(),
  emitter_id: z.string(),
  listener_id: z.string(),
  event_name: z.string(),
});

export const StatsPointOut = z.object({
  t: z.number(),
  events: z.number(),
  errors: z.number(),
  logs: z.number(),
  invocations: z.number(),
  compute_ms: z.number(),
});
