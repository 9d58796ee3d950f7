/**
 * The figure on each edge: how many events its emitter produced in the last hour, from its
 * stats (`GET /sources/{id}/stats`, `GET /workflows/{id}/stats`: counted as events are appended,
 * so retention never lowers it). A server without the stats endpoint answers 404: then the
 * events it still retains (`total_count` of the event list), and the view says which.
 */
import { call } from "../../state/bridge.js";
import type { EdgeCounts } from "./graph.js";

/** At most this many reads in flight at once (200 emitters must not open 200 requests). */
const CONCURRENCY = 6;
const HOUR_MS = 3_600_000;

async function hourCount(id: string, since: number): Promise<number> {
  const stats = id.startsWith("p_")
    ? await call("getWorkflowStats", id, { since })
    : await call("getSourceStats", id, { since });
  return stats.series.reduce((n, p) => n + p.events, 0);
}

async function retainedCount(id: string): Promise<number> {
  const page = id.startsWith("p_")
    ? await call("listWorkflowEvents", id, { limit: 1 })
    : await call("listSourceEvents", id, { limit: 1 });
  return page.page_info.total_count;
}

export async function emitterCounts(ids: readonly string[]): Promise<EdgeCounts> {
  const counts = new Map<string, number>();
  const since = Date.now() - HOUR_MS;
  let basis = "hour" as EdgeCounts["basis"];
  let next = 0;
  const worker = async () => {
    while (next < ids.length) {
      const id = ids[next++]!;
      try {
        counts.set(id, basis === "hour" ? await hourCount(id, since) : await retainedCount(id));
      } catch {
        // No stats on this server (or the emitter went away): fall back to retained counts.
        try {
          const n = await retainedCount(id);
          basis = "retained";
          counts.set(id, n);
        } catch {
          // Deleted meanwhile: no figure.
        }
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(CONCURRENCY, ids.length) }, worker));
  if (basis === "retained")
    for (const id of ids)
      if (counts.has(id)) counts.set(id, await retainedCount(id).catch(() => counts.get(id)!));
  return { counts, basis };
}
