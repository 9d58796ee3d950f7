import { z } from "zod";
import { QueryInt } from "./common.js";
import { SearchText } from "./inspection.js";
import { PAGE_LIMIT } from "./page.js";

/** Events larger than this (JSON bytes) are truncated in summaries unless `expand=event`. */
export const EVENT_TRUNCATE_BYTES = 1024;

/** Default number of events retained per emitter and channel. */
export const DEFAULT_EVENT_RETENTION = 100;

export const EventMetadata = z.looseObject({
  emit_id: z.string(),
  name: z.string(),
  emitter_id: z.string(),
  id: z.unknown().optional(),
  summary: z.string().optional(),
  ts: z.number().optional(),
  truncated: z.boolean().optional(),
});
export type EventMetadata = z.infer<typeof EventMetadata>;

export const EventSummary = z.looseObject({
  id: z.string(),
  indexed_at_ms: z.number().int(),
  event: z.unknown(),
  metadata: EventMetadata,
});
export type EventSummary = z.infer<typeof EventSummary>;

/** What a truncated event looks like in a summary. */
export const TruncatedEvent = z.object({
  truncated: z.literal(true),
  size: z.number().int(),
  preview: z.string(),
});
export type TruncatedEvent = z.infer<typeof TruncatedEvent>;

/** Query of `GET .../event_summaries`. */
export const EventListQuery = z.object({
  expand: z.literal("event").optional(),
  limit: QueryInt.pipe(z.number().int().min(PAGE_LIMIT.min).max(PAGE_LIMIT.max)).optional(),
  after: z.string().min(1).optional(),
  before: z.string().min(1).optional(),
  event_name: z.string().max(128).optional(),
  q: SearchText,
});
export type EventListQuery = z.input<typeof EventListQuery>;

/** Query of `DELETE /sources/{id}/events`. */
export const DeleteEventsQuery = z.object({
  start_id: z.string().regex(/^\d+-\d+$/, "not an event id").optional(),
  end_id: z.string().regex(/^\d+-\d+$/, "not an event id").optional(),
  event_name: z.string().max(128).optional(),
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
    message: z.string().optional(),
    cellId: z.string(),
    ts: z.string(),
    stack: z.string(),
  }),
});
export type WorkflowErrorEvent = z.infer<typeof WorkflowErrorEvent>;
