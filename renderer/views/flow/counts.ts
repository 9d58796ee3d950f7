/**
 * The figure on each edge: how many events its emitter produced. The stats endpoint
 * (`GET /sources/{id}/stats`, the last hour) is used when the bridge offers it; until then, the
 * events the server still retains (`total_count` of the event list).
 */
import { call } from "../../state/bridge.js";
import type { EdgeCounts } from "./graph.js";

/** At most this many reads in flight at once (200 emitters must not open 200 requests). */
const CONCURRENCY = 6;

async function retainedCount(id: string): Promise<number> {
  const page = id.startsWith("p_")
    ? await call("listWorkflowEvents", id, { limit: 1 })
    : await call("listSourceEvents", id, { limit: 1 });
  return page.page_info.total_count;
}

export async function emitterCounts(ids: readonly string[]): Promise<EdgeCounts> {
  const counts = new Map<string, number>();
  let next = 0;
  const worker = async () => {
    while (next < ids.length) {
      const id = ids[next++]!;
      try {
        counts.set(id, await retainedCount(id));
      } catch {
        // An emitter that cannot be read (deleted meanwhile) just has no figure.
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(CONCURRENCY, ids.length) }, worker));
  return { counts, basis: "retained" };
}
