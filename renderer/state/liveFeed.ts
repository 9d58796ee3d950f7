/**
 * The live feed: the events of the one stream the events table is watching, newest first.
 * Batches arrive from the host every ~50 ms; each is applied in ONE state update so React renders
 * once per batch, and the number of rows retained is capped so memory stops growing.
 */
import { create } from "zustand";
import type { EventSummary } from "../../shared/resources/index.js";
import { compareEventIds } from "../../shared/ids.js";
import { LIVE_FEED_MAX_ROWS } from "../../shared/bridge.js";

/** Rows kept per stream; older ones fall off the end (the host and the bench agree on it). */
export const DEFAULT_RETENTION_CAP = LIVE_FEED_MAX_ROWS;

export interface LiveFeedState {
  /** Which stream the rows belong to (e.g. `dc_abc|$logs`); batches for another key are ignored. */
  key: string | null;
  /** Newest first, unique ids, at most `cap` long. */
  rows: EventSummary[];
  /** Events received while paused (newest first), shown as "N new" and merged on resume. */
  pending: EventSummary[];
  paused: boolean;
  cap: number;
  /** Incremented whenever rows change, so memoised views can cheaply tell. */
  version: number;

  /** Starts watching `key` with rows loaded over REST (any order). */
  reset: (key: string | null, initial?: readonly EventSummary[]) => void;
  /** Adds rows read over REST (the initial page), shown even while paused. */
  load: (key: string, rows: readonly EventSummary[]) => void;
  /** Applies one batch from the host (any order, may overlap what is already shown). */
  applyBatch: (key: string, batch: readonly EventSummary[]) => void;
  setPaused: (paused: boolean) => void;
  /** Removes rows whose id lies in [startId, endId] inclusive (either bound may be open). */
  removeRange: (startId: string | undefined, endId: string | undefined) => void;
  setCap: (cap: number) => void;
}

/**
 * Sorts newest first. Ids are parsed once per event (not per comparison): a 50,000-row sort
 * would otherwise run a regex a million times.
 */
function sortNewestFirst(list: EventSummary[]): EventSummary[] {
  const keyed = list.map((e) => {
    const dash = e.id.indexOf("-");
    return { e, ms: Number(e.id.slice(0, dash)), seq: Number(e.id.slice(dash + 1)) };
  });
  keyed.sort((a, b) => b.ms - a.ms || b.seq - a.seq);
  return keyed.map((k) => k.e);
}

/**
 * Merges `incoming` into `rows` (both newest first once sorted), dropping duplicate ids and
 * keeping at most `cap`. Live batches are normally all newer than the head: that path is a
 * single concat; a back-fill that interleaves falls back to a sort.
 */
export function mergeNewestFirst(
  rows: readonly EventSummary[],
  incoming: readonly EventSummary[],
  cap: number,
): EventSummary[] {
  if (incoming.length === 0) return rows.slice(0, cap);
  const sorted = sortNewestFirst(incoming.slice());
  const fresh: EventSummary[] = [];
  let last: string | undefined;
  for (const e of sorted) {
    if (e.id !== last) fresh.push(e);
    last = e.id;
  }
  const head = rows[0];
  const oldestFresh = fresh[fresh.length - 1];
  if (!head || (oldestFresh && compareEventIds(oldestFresh.id, head.id) > 0)) {
    // One allocation per batch (concat, then trim in place): at 50,000 rows each array is a
    // large object in V8's old space, so every extra copy brings the next full GC closer.
    const out = fresh.concat(rows);
    if (out.length > cap) out.length = cap;
    return out;
  }
  const seen = new Set<string>();
  const all: EventSummary[] = [];
  for (const e of fresh.concat(rows)) {
    if (seen.has(e.id)) continue;
    seen.add(e.id);
    all.push(e);
  }
  const ordered = sortNewestFirst(all);
  return ordered.length > cap ? ordered.slice(0, cap) : ordered;
}

function inRange(id: string, start: string | undefined, end: string | undefined): boolean {
  if (start !== undefined && compareEventIds(id, start) < 0) return false;
  if (end !== undefined && compareEventIds(id, end) > 0) return false;
  return true;
}

export const createLiveFeed = (cap = DEFAULT_RETENTION_CAP) =>
  create<LiveFeedState>()((set, get) => ({
    key: null,
    rows: [],
    pending: [],
    paused: false,
    cap,
    version: 0,

    reset: (key, initial = []) =>
      set((s) => ({
        key,
        rows: mergeNewestFirst([], initial, s.cap),
        pending: [],
        paused: false,
        version: s.version + 1,
      })),

    load: (key, rows) => {
      const s = get();
      if (key !== s.key) return;
      set({ rows: mergeNewestFirst(s.rows, rows, s.cap), version: s.version + 1 });
    },

    applyBatch: (key, batch) => {
      const s = get();
      if (key !== s.key || batch.length === 0) return;
      if (s.paused) {
        set({ pending: mergeNewestFirst(s.pending, batch, s.cap) });
        return;
      }
      set({ rows: mergeNewestFirst(s.rows, batch, s.cap), version: s.version + 1 });
    },

    setPaused: (paused) =>
      set((s) => {
        if (paused) return { paused };
        return {
          paused,
          rows: mergeNewestFirst(s.rows, s.pending, s.cap),
          pending: [],
          version: s.version + 1,
        };
      }),

    removeRange: (start, end) =>
      set((s) => ({
        rows: s.rows.filter((e) => !inRange(e.id, start, end)),
        pending: s.pending.filter((e) => !inRange(e.id, start, end)),
        version: s.version + 1,
      })),

    setCap: (newCap) =>
      set((s) => ({ cap: newCap, rows: s.rows.slice(0, newCap), pending: s.pending.slice(0, newCap) })),
  }));

/** The app's one live feed (the events table watches one stream at a time). */
export const useLiveFeed = createLiveFeed();
