/** The newest events of a source's channels, read page by page from `event_summaries`. */
import type { Client } from "../../shared/client/index.js";
import type { EventSummary } from "../../shared/resources/index.js";
import { newer } from "./order.js";

/** Up to `n` newest events over `channels`, oldest first; with `q`, only those a search finds. */
export async function recentEvents(client: Client, sourceId: string, channels: string[], n: number, q?: string): Promise<EventSummary[]> {
  if (n <= 0) return [];
  const all: EventSummary[] = [];
  for (const channel of channels) {
    let after: string | undefined;
    let got = 0;
    while (got < n) {
      const limit = Math.min(100, n - got);
      const page = await client.listSourceEvents(sourceId, { event_name: channel, limit, after, expand: "event", q });
      all.push(...page.data);
      got += page.data.length;
      if (page.data.length < limit || !page.page_info.end_cursor) break;
      after = page.page_info.end_cursor;
    }
  }
  all.sort((a, b) => (newer(a.id, b.id) ? 1 : newer(b.id, a.id) ? -1 : 0));
  return all.slice(-n);
}

/** The id of the newest event over `channels` (where a live stream resumes), if any. */
export async function newestId(client: Client, sourceId: string, channels: string[]): Promise<string | undefined> {
  let best: string | undefined;
  for (const channel of channels) {
    const page = await client.listSourceEvents(sourceId, { event_name: channel, limit: 1 });
    const id = page.data[0]?.id;
    if (id && (best === undefined || newer(id, best))) best = id;
  }
  return best;
}
