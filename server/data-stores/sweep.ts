/**
 * Expired records read as absent at once (every query filters them); this deletes them later,
 * every minute, a thousand at a time so that no sweep holds the database for long. Each instance
 * sweeps: two deleting the same rows is harmless. The same sweep forgets the call keys of runs
 * that never ended (once.ts), a day on.
 */
import type { DataStoreRecordsRepo } from "../store/repos/data-store-records.js";
import type { OnceWrites } from "./once.js";

const EVERY_MS = 60_000;
const BATCH = 1000;

/** Deletes every record expired by `nowMs`; how many. */
export async function sweepExpired(records: DataStoreRecordsRepo, nowMs = Date.now()): Promise<number> {
  let total = 0;
  for (;;) {
    const n = await records.sweep(nowMs, BATCH);
    total += n;
    if (n < BATCH) return total;
    // Between batches, the event loop serves what waits.
    await new Promise((r) => setImmediate(r));
  }
}

export function startSweeping(
  records: DataStoreRecordsRepo,
  once: Pick<OnceWrites, "sweep" | "flush">,
  log: { warn(obj: unknown, msg: string): void },
): { stop(): Promise<void> } {
  let running: Promise<unknown> | undefined;
  const sweep = () => {
    running ??= Promise.all([sweepExpired(records), once.sweep()])
      .catch((err: unknown) =>
        log.warn({ err }, "sweeping expired data store records failed; will try again in a minute"),
      )
      .finally(() => (running = undefined));
  };
  const timer = setInterval(sweep, EVERY_MS);
  timer.unref();
  return {
    async stop() {
      clearInterval(timer);
      await running;
      await once.flush();
    },
  };
}
