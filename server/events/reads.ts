/**
 * Reading and deleting retained events: pages of summaries with cursors in both directions,
 * and inclusive range deletes. Cursors of event lists are event ids (decisions.md).
 */
import { eventSortKey, parseEventId } from "../../shared/ids.js";
import { PAGE_LIMIT, type EventSummary, type Page } from "../../shared/resources/index.js";
import type { Db } from "../store/db.js";
import type { SearchIndex } from "../store/search/search-index.js";
import { searchEvents } from "../store/repos/event-search.js";
import { countEvents, deleteEventRange, listEvents } from "../store/repos/events.js";
import { toSummary } from "./summaries.js";

/** A request the events module refuses (a 400 for the API). */
export class EventQueryError extends Error {
  constructor(
    readonly code: "bad_cursor" | "bad_request",
    message: string,
  ) {
    super(message);
    this.name = "EventQueryError";
  }
}

/** The sort key of an event id, or an EventQueryError naming the parameter. */
export function sortKeyOf(id: string, param: string): string {
  const parsed = parseEventId(id);
  if (!parsed) throw new EventQueryError(param === "after" || param === "before" ? "bad_cursor" : "bad_request", `${param} is not an event id: ${id}`);
  return eventSortKey(parsed);
}

export interface ListOptions {
  limit?: number;
  after?: string;
  before?: string;
  expand?: boolean;
  /** Only events whose data or summary contains this text (case-insensitive). */
  q?: string | undefined;
}

/** A page of one emitter channel's summaries, newest first (`index`: SQLite's search index). */
export async function listSummaries(
  db: Db,
  index: SearchIndex | undefined,
  emitterId: string,
  channel: string,
  opts: ListOptions,
): Promise<Page<EventSummary>> {
  const limit = opts.limit ?? PAGE_LIMIT.default;
  const olderThan = opts.after !== undefined ? sortKeyOf(opts.after, "after") : undefined;
  const newerThan = opts.before !== undefined ? sortKeyOf(opts.before, "before") : undefined;
  const window = { limit, olderThan, newerThan };
  const q = opts.q;
  const { rows, total } =
    q === undefined
      ? await Promise.all([listEvents(db, emitterId, channel, window), countEvents(db, emitterId, channel)]).then(([rows, total]) => ({ rows, total }))
      : await searchEvents(db, index, emitterId, channel, q, window);
  const data = rows.map((r) => toSummary(r, opts.expand === true));
  return {
    page_info: {
      total_count: total,
      count: data.length,
      start_cursor: data[0]?.id ?? null,
      end_cursor: data[data.length - 1]?.id ?? null,
    },
    data,
  };
}

/**
 * Deletes a channel's events from `startId` to `endId`, both inclusive, either open. Runs before
 * the API answers 202: it is one indexed delete over at most the retained events, so any read
 * that starts after the answer already sees it (well within the contract's 1 s).
 */
export async function deleteEvents(
  db: Db,
  emitterId: string,
  channel: string,
  startId: string | undefined,
  endId: string | undefined,
): Promise<number> {
  const from = startId !== undefined ? sortKeyOf(startId, "start_id") : undefined;
  const to = endId !== undefined ? sortKeyOf(endId, "end_id") : undefined;
  if (from !== undefined && to !== undefined && from > to) {
    throw new EventQueryError("bad_request", "start_id is later than end_id");
  }
  return deleteEventRange(db, emitterId, channel, from, to);
}
