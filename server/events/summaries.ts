/**
 * Event summary items as the API returns them (decisions.md "Events"):
 * `{id, indexed_at_ms, event, metadata: {emit_id, name, emitter_id, id?, summary?, ts?}}`,
 * with events over 1024 bytes of JSON replaced by `{truncated, size, preview}` unless expanded.
 */
import { EVENT_JSON_BYTES, EVENT_TRUNCATE_BYTES, type EventSummary } from "../../shared/resources/index.js";
import type { EventRow } from "../store/repos/events.js";

export interface EmitMeta {
  id?: unknown;
  summary?: string;
  ts?: number;
}

/** The first `max` bytes of a string's UTF-8, never splitting a character. */
export function utf8Prefix(text: string, max: number): string {
  const buf = Buffer.from(text, "utf8");
  if (buf.length <= max) return text;
  let end = max;
  // Step back over continuation bytes (10xxxxxx) so the cut falls on a character boundary.
  while (end > 0 && (buf[end]! & 0xc0) === 0x80) end--;
  return buf.subarray(0, end).toString("utf8");
}

function metadataJson(row: EventRow, truncated: boolean): string {
  const head = `{"emit_id":${JSON.stringify(row.emit_id)},"name":${JSON.stringify(row.channel)},"emitter_id":${JSON.stringify(row.emitter_id)}`;
  // meta_json is "{}" or '{"id":...}': splice its members after ours.
  const rest = row.meta_json.length > 2 ? "," + row.meta_json.slice(1, -1) : "";
  return head + rest + (truncated ? ',"truncated":true}' : "}");
}

/**
 * The summary item as JSON text, built from the stored JSON without re-parsing it (the SSE hot
 * path writes this string as is).
 */
export function summaryJson(row: EventRow, expand: boolean): string {
  const truncated = !expand && row.size > EVENT_TRUNCATE_BYTES;
  const event = truncated
    ? `{"truncated":true,"size":${row.size},"preview":${JSON.stringify(utf8Prefix(row.event_json, EVENT_TRUNCATE_BYTES))}}`
    : row.event_json;
  return `{"id":${JSON.stringify(row.id)},"indexed_at_ms":${row.indexed_at_ms},"event":${event},"metadata":${metadataJson(row, truncated)}}`;
}

export function toSummary(row: EventRow, expand: boolean): EventSummary {
  const summary = JSON.parse(summaryJson(row, expand)) as EventSummary;
  if (expand || row.size <= EVENT_TRUNCATE_BYTES) Object.defineProperty(summary, EVENT_JSON_BYTES, { value: row.size });
  return summary;
}

/** The `$emit` options worth keeping, as JSON text (only keys that were given). */
export function encodeEmitMeta(meta: EmitMeta | undefined): string {
  if (!meta) return "{}";
  const kept: EmitMeta = {};
  if (meta.id !== undefined && meta.id !== null) kept.id = meta.id;
  if (typeof meta.summary === "string") kept.summary = meta.summary;
  if (typeof meta.ts === "number" && Number.isFinite(meta.ts)) kept.ts = meta.ts;
  return JSON.stringify(kept);
}
