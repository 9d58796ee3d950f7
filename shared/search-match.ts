/**
 * What a search (`q` on event lists) matches, for clients that filter live events the way the
 * server filters stored ones: the event's summary or its data as JSON contains the text,
 * case-insensitive (decisions.md, "Event inspection").
 */
import type { EventSummary } from "./resources/index.js";

/** The lower-case text a search looks in. */
export function searchableText(e: EventSummary): string {
  let data: string;
  try {
    data = JSON.stringify(e.event) ?? "";
  } catch {
    data = String(e.event);
  }
  return `${e.metadata.summary ?? ""}\n${data}`.toLowerCase();
}

export function matchesSearch(e: EventSummary, q: string): boolean {
  return searchableText(e).includes(q.toLowerCase());
}
