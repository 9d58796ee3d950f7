import * as z from "../zod.js";
import { QueryInt } from "./common.js";
import { SearchText } from "./inspection.js";
import { PAGE_LIMIT } from "./page.js";

/** Events larger than this (JSON bytes) are truncated in summaries unless `expand=event`. */
export const EVENT_TRUNCATE_BYTES = 1024;

/**
 * Where a summary made in the server's process may carry its event's size in bytes of JSON (a
 * symbol: never serialized, so never part of an answer). The MCP tools' 4 KB cut reads it
 * rather than serializing each event to measure it; a summary read from JSON has none.
 */
export const EVENT_JSON_BYTES: unique symbol = Symbol.for("headwater.event_json_bytes");

/** Default number of events retained per emitter and channel. */
export const DEFAULT_EVENT_RETENTION = 100;

export const EventMetadata = z.looseObject({
  emit_id: z.string(),
  name: z.string(),
  emitter_id: z.string(),
  id: z.optional(z.unknown()),
  summary: z.optional(z.string()),
  ts: z.optional(z.number()),
  truncated: z.optional(z.boolean()),
});
export type EventMetadata = z.infer<typeof EventMetadata>;

export const EventSummary = z.looseObject({
  id: z.string(),
  indexed_at_ms: z.number().check(z.int()),
  event: z.unknown(),
  metadata: EventMetadata,
});
export type EventSummary = z.infer<typeof EventSummary>;

/** What a truncated event looks like in a summary. */
export const TruncatedEvent = z.object({
  truncated: z.literal(true),
  size: z.number().check(z.int()),
  preview: z.string(),
});
export type TruncatedEvent = z.infer<typeof TruncatedEvent>;

/** Query of `GET .../event_summaries`. */
export const EventListQuery = z.object({
  expand: z.optional(z.literal("event")),
  limit: z.optional(
    z.pipe(QueryInt, z.number().check(z.int(), z.gte(PAGE_LIMIT.min), z.lte(PAGE_LIMIT.max))),
  ),
  after: z.optional(z.string().check(z.minLength(1))),
  before: z.optional(z.string().check(z.minLength(1))),
  event_name: z.optional(z.string().check(z.maxLength(128))),
  q: SearchText,
});
export type EventListQuery = z.input<typeof EventListQuery>;

/** Query of `DELETE /sources/{id}/events`. */
export const DeleteEventsQuery = z.object({
  start_id: z.optional(z.string().check(z.regex(/^\d+-\d+$/, "not an event id"))),
  end_id: z.optional(z.string().check(z.regex(/^\d+-\d+$/, "not an event id"))),
  event_name: z.optional(z.string().check(z.maxLength(128))),
});
export type DeleteEventsQuery = z.input<typeof DeleteEventsQuery>;

/** A workflow error event (`$errors` channel), in the spec's shape. */
export const WorkflowErrorEvent = z.looseObject({
  original_event: z.unknown(),
  original_context: z.looseObject({
    id: z.string(),
    ts: z.string(),
    workflow_id: z.string(),
    deployment_id: z.string(),
    source_type: z.string(),
    verified: z.boolean(),
    owner_id: z.string(),
    platform_version: z.string(),
  }),
  error: z.looseObject({
    code: z.string(),
    message: z.optional(z.string()),
    cellId: z.string(),
    ts: z.string(),
    stack: z.string(),
  }),
});
export type WorkflowErrorEvent = z.infer<typeof WorkflowErrorEvent>;
