/** What the events table shows of an event: summary, size and searchable text, each cached per row. */
import type { EventSummary } from "../../../shared/resources/index.js";
import { TruncatedEvent } from "../../../shared/resources/index.js";
import { searchableText } from "../../../shared/search-match.js";

const summaries = new WeakMap<EventSummary, string>();
const sizes = new WeakMap<EventSummary, number>();
const encoder = new TextEncoder();

function truncatedOf(e: EventSummary) {
  if (!e.metadata.truncated) return null;
  const t = TruncatedEvent.safeParse(e.event);
  return t.success ? t.data : null;
}

function jsonOf(value: unknown): string {
  try {
    return JSON.stringify(value) ?? "undefined";
  } catch {
    return String(value);
  }
}

/** The emitter's summary, or a one-line preview of the data. */
export function eventSummaryText(e: EventSummary): string {
  let s = summaries.get(e);
  if (s === undefined) {
    const given = e.metadata.summary;
    if (typeof given === "string" && given.length > 0) s = given;
    else s = (truncatedOf(e)?.preview ?? jsonOf(e.event)).slice(0, 240);
    summaries.set(e, s);
  }
  return s;
}

/** Bytes of the event's JSON (the full size for a truncated one). */
export function eventSize(e: EventSummary): number {
  let n = sizes.get(e);
  if (n === undefined) {
    n = truncatedOf(e)?.size ?? encoder.encode(jsonOf(e.event)).length;
    sizes.set(e, n);
  }
  return n;
}

export function channelLabel(name: string): string {
  return name === "" ? "default" : name;
}

/** The time an event is shown with: its emitter's `ts` when given in ms, else when it was indexed. */
export function eventTimeMs(e: EventSummary): number {
  return e.indexed_at_ms;
}

const searchTexts = new WeakMap<EventSummary, string>();

/**
 * Lower-case text a server search (`q`) matches: the summary and the event's data as JSON.
 * Live events that arrive during a search are matched against it, the way the server would.
 */
export function eventSearchText(e: EventSummary): string {
  let t = searchTexts.get(e);
  if (t === undefined) {
    t = searchableText(e);
    searchTexts.set(e, t);
  }
  return t;
}
