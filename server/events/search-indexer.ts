/**
 * Keeps the SQLite search index close behind the stored events (migrations/0007): after a commit
 * that stored events, a batch is indexed `delayMs` later in the write transaction of that turn,
 * so a source's run → commit → SSE path never pays for the trigram index, and the index is
 * written once per batch instead of once per commit. Searches never depend on it: they index
 * what is pending first (repos/search-index.ts). On PostgreSQL it does nothing.
 */
import type { WriteGroup } from "../store/write-group.js";
import type { Db } from "../store/db.js";
import { indexPending, isSqlite } from "../store/repos/search-index.js";

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
 * `delayMs` after the first commit that stored events: short, so a batch stays small at a
 * steady rate (about 5 events at 200 a second) and no event waits behind a long one; still a
 * batch, so one FTS segment holds several events.
 */
export function startSearchIndexer(db: Db, writes: WriteGroup, onError: (err: unknown) => void, delayMs = 25): SearchIndexer {
  if (!isSqlite(db)) return { stored: () => undefined, close: async () => undefined };
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> | undefined;
  let closed = false;
  const schedule = (ms: number) => {
    if (timer || running || closed) return;
    timer = setTimeout(run, ms);
    timer.unref();
  };
  let again = false;
  function run(): void {
    timer = undefined;
    running = writes
      .run((trx) => indexPending(trx, BATCH))
      .then(
        (n) => {
          again = n >= BATCH;
        },
        (err: unknown) => {
          // Left for the next batch, or for the next search, which indexes what is pending.
          onError(err);
          again = false;
        },
      )
      .finally(() => {
        running = undefined;
        if (again) schedule(0);
      });
  }
  // Whatever a previous process stored and did not index (a crash, an older version).
  schedule(delayMs);
  return {
    stored: () => schedule(delayMs),
    async close() {
      closed = true;
      if (timer) clearTimeout(timer);
      timer = undefined;
      await running;
    },
  };
}
