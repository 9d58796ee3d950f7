/**
 * Stats of a source or workflow (decisions.md "Event inspection"): per bucket, what was
 * appended and what ran, from the per-minute counters the event store keeps in its commits
 * (store/repos/event-stats.ts). One point per bucket in the window, oldest first, zeros
 * included; `t` is the bucket's start (UTC-aligned: minutes, hours and days since the epoch).
 * The window is [since, until): it starts at the bucket holding `since` and ends with the bucket
 * holding the last millisecond before `until`.
 */
import {
  STATS_BUCKET_MS,
  STATS_DEFAULT_WINDOW_MS,
  STATS_MAX_WINDOW_MS,
  STATS_MAX_WINDOW_TEXT,
  type Stats,
  type StatsBucket,
  type StatsPoint,
} from "../../shared/resources/index.js";
import type { Db } from "../store/db.js";
import { pruneStats, statsBuckets } from "../store/repos/event-stats.js";
import { EventQueryError } from "./reads.js";

export interface StatsWindow {
  since?: number | undefined;
  until?: number | undefined;
  bucket?: StatsBucket | undefined;
}

export async function readStats(db: Db, emitterId: string, w: StatsWindow, now = Date.now()): Promise<Stats> {
  const bucket = w.bucket ?? "minute";
  const size = STATS_BUCKET_MS[bucket];
  const until = w.until ?? (w.since !== undefined ? Math.max(now, w.since) : now);
  const since = w.since ?? until - STATS_DEFAULT_WINDOW_MS;
  if (since > until) throw new EventQueryError("bad_request", "since is later than until");
  if (until - since > STATS_MAX_WINDOW_MS[bucket]) {
    throw new EventQueryError(
      "bad_request",
      `a window of ${bucket} buckets spans at most ${STATS_MAX_WINDOW_TEXT[bucket]} (got ${Math.ceil((until - since) / 86_400_000)} days): use a larger bucket or a shorter window`,
    );
  }
  const first = since - (since % size);
  // Buckets up to the one holding until - 1 (at least the one holding since).
  const end = Math.max(first + size, until - ((until - 1) % size) - 1 + size);
  const count = Math.round((end - first) / size);
  const series: StatsPoint[] = Array.from({ length: count }, (_, n) => ({
    t: first + n * size,
    events: 0,
    errors: 0,
    logs: 0,
    invocations: 0,
    compute_ms: 0,
  }));
  for (const row of await statsBuckets(db, emitterId, first, end, size)) {
    const p = series[row.n];
    if (!p) continue;
    p.events = row.events;
    p.errors = row.errors;
    p.logs = row.logs;
    p.invocations = row.invocations;
    p.compute_ms = row.compute_ms;
  }
  return { bucket, series };
}

/** Drops stats older than `days` every hour (and once at start); stop() ends it. */
export function startStatsPruning(db: Db, days: number, log: { warn(obj: unknown, msg: string): void }): { stop(): Promise<void> } {
  let running: Promise<unknown> | undefined;
  const prune = () => {
    running ??= pruneStats(db, Date.now() - days * 86_400_000)
      .catch((err: unknown) => log.warn({ err }, "pruning event stats failed; will try again in an hour"))
      .finally(() => (running = undefined));
  };
  prune();
  const timer = setInterval(prune, 3_600_000);
  timer.unref();
  return {
    async stop() {
      clearInterval(timer);
      await running;
    },
  };
}
