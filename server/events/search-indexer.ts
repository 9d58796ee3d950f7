/**
 * Keeps the SQLite search index close behind the stored events (migrations/0007): events are
 * indexed in batches, in a write transaction of their own after the commits that stored them,
 * so a source's run → commit → SSE path never pays for the trigram index, and the index is
 * written once per batch instead of once per commit. Searches never depend on it: they index
 * what is pending first (repos/search-index.ts). On PostgreSQL it does nothing.
 */
import type { WriteGroup } from "../store/write-group.js";
import type { Db } from "../store/db.js";
import { isSqlite } from "../store/dialect-of.js";
import { indexPending } from "../store/repos/search-index.js";

/**
 * Events per batch (more waiting are taken by the next batch at once): a batch holds the event
 * loop for its length (roughly 50 to 100 µs an event measured under load), so it is kept short.
 */
const BATCH = 200;

export interface SearchIndexer {
  /** Events were stored: index them soon. */
  stored(): void;
  /** Waits for a batch under way; no batch starts after. */
  close(): Promise<void>;
}

/**
 * Indexes at the first commit at least `delayMs` after the oldest one not indexed yet, right after
 * it (its events published, its requests answered), or `2 × delayMs` after that oldest one when no
 * commit comes. A steady stream's gaps between events are when the server has nothing else to
 * do: a batch (about 0.3 ms for 5 events) run at a timer's moment instead met the next event's
 * run or commit about one time in five, and delayed that event by as much. `delayMs` is short, so
 * a batch stays small at a steady rate (about 5 events at 200 a second); still a batch, so one
 * FTS segment holds several events.
 */
export function startSearchIndexer(db: Db, writes: WriteGroup, onError: (err: unknown) => void, delayMs = 25): SearchIndexer {
  if (!isSqlite(db)) return { stored: () => undefined, close: async () => undefined };
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> | undefined;
  let closed = false;
  /** When the oldest commit not indexed yet was stored (performance.now()), if there is one. */
  let pendingSince: number | undefined;
  const arm = (ms: number) => {
    if (timer || running || closed) return;
    timer = setTimeout(run, ms);
    timer.unref();
  };
  function run(): void {
    if (timer) clearTimeout(timer);
    timer = undefined;
    if (running || closed) return;
    pendingSince = undefined;
    running = writes
      .run((trx) => indexPending(trx, BATCH))
      .then(
        (n) => n >= BATCH,
        (err: unknown) => {
          // Left for the next batch, or for the next search, which indexes what is pending.
          onError(err);
          return false;
        },
      )
      .then((more) => {
        running = undefined;
        if (more) arm(0);
        // Stored while this batch ran: indexed with the next commit's batch, or by the timer.
        else if (pendingSince !== undefined) arm(2 * delayMs);
      });
  }
  // Whatever a previous process stored and did not index (a crash, an older version).
  arm(delayMs);
  return {
    stored() {
      if (closed) return;
      pendingSince ??= performance.now();
      if (running) return;
      // Called as the commit's events are published: the write group runs the batch after this
      // turn, behind the commit's own continuations (its requests' answers among them).
      if (performance.now() - pendingSince >= delayMs) run();
      else arm(2 * delayMs);
    },
    async close() {
      closed = true;
      if (timer) clearTimeout(timer);
      timer = undefined;
      await running;
    },
  };
}
