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

/** Longest body preview beside an HTTP request's method and path. */
const BODY_PREVIEW_CHARS = 80;

/**
 * An HTTP request event (`{method, path, body, ...}`, as HTTP sources and workflow endpoints
 * emit it) in one line: "POST /orders {"id":7,"total":12.5}". Undefined for any other event.
 */
export function httpRequestLine(event: unknown): string | undefined {
  if (!event || typeof event !== "object") return undefined;
  const { method, path, body } = event as { method?: unknown; path?: unknown; body?: unknown };
  if (typeof method !== "string" || typeof path !== "string") return undefined;
  const line = `${method} ${path}`;
  if (body === undefined || body === null || body === "") return line;
  const text = (typeof body === "string" ? body : jsonOf(body)).replace(/\s+/g, " ").trim();
  return `${line} ${text.length > BODY_PREVIEW_CHARS ? `${text.slice(0, BODY_PREVIEW_CHARS - 1)}…` : text}`;
}

/**
 * The emitter's summary, or a one-line preview of the data. A summary that says only an HTTP
 * request's method and path ("POST /", the same for every request to an endpoint) gets a
 * preview of the body after it, so rows can be told apart.
 */
export function eventSummaryText(e: EventSummary): string {
  let s = summaries.get(e);
  if (s === undefined) {
    const given = e.metadata.summary;
    const request = truncatedOf(e) ? undefined : httpRequestLine(e.event);
    if (request && (typeof given !== "string" || given === "" || request.startsWith(`${given} `))) s = request;
    else if (typeof given === "string" && given.length > 0) s = given;
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
