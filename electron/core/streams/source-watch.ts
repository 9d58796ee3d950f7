/**
 * A live feed of one source channel over SSE, with REST back-fill.
 *
 * On every successful (re)connection the watch fetches the channel's newest events over REST
 * (`event_summaries`) and delivers those it has not seen, holding live messages meanwhile, so the
 * feed stays in id order. On the first connection this supplies the recent history; after a
 * reconnect it closes any gap a server without `Last-Event-ID` resume (or with a shorter replay)
 * would leave. Duplicates from the resume and the back-fill overlapping are dropped by id.
 *
 * The default channel streams from `/sources/{id}/sse`; `$logs` and `$errors` from
 * `/sse/dc/{id}/observations`, filtered to the watched channel.
 */
import { ApiError } from "../../../shared/client/index.js";
import type { EventSummary } from "../../../shared/resources/index.js";
import { connectSse, toEventSummary, type SseStateInfo } from "../../../shared/sse/index.js";
import { RecentIds, compareIds } from "./recent-ids.js";
import type { Watch, WatchOptions, WatchSink } from "./types.js";

export function watchSource(opts: WatchOptions, sink: WatchSink): Watch {
  const { emitterId, channel, connection } = opts;
  const seen = new RecentIds();
  const backfillLimit = opts.backfillLimit ?? 1000;
  let closed = false;
  let lastSeen: string | undefined;
  let backfillsRunning = 0;
  let held: EventSummary[] = [];

  const deliver = (list: EventSummary[]) => {
    const fresh: EventSummary[] = [];
    for (const e of list) {
      if (seen.has(e.id)) continue;
      seen.add(e.id);
      fresh.push(e);
      if (lastSeen === undefined || compareIds(e.id, lastSeen) > 0) lastSeen = e.id;
    }
    if (fresh.length > 0 && !closed) sink.events(fresh);
  };

  const accept = (e: EventSummary) => {
    if (backfillsRunning > 0) held.push(e);
    else deliver([e]);
  };

  async function backfill(): Promise<void> {
    const since = lastSeen;
    const found: EventSummary[] = [];
    let cursor: string | undefined;
    // Newest first, page by page, until we reach what we already have (or, the first time,
    // after one page: the recent history).
    for (;;) {
      const page = await connection.client.listSourceEvents(emitterId, {
        limit: 100,
        ...(channel ? { event_name: channel } : {}),
        ...(cursor ? { after: cursor } : {}),
      });
      let reachedKnown = false;
      for (const e of page.data) {
        if (since !== undefined && compareIds(e.id, since) <= 0) {
          reachedKnown = true;
          break;
        }
        found.push(e);
      }
      cursor = page.page_info.end_cursor ?? undefined;
      if (since === undefined || reachedKnown || page.data.length < 100 || !cursor || found.length >= backfillLimit) break;
    }
    found.reverse();
    held.push(...found);
  }

  const startBackfill = () => {
    backfillsRunning += 1;
    backfill()
      .catch((err: unknown) => {
        // The stream itself reports auth and reachability problems; a failed back-fill only
        // means the gap (if any) stays until the next reconnect.
        if (!(err instanceof ApiError && err.status === 401)) {
          sink.log?.(`back-fill of ${emitterId} ${channel || "default"} failed: ${String(err)}`);
        }
      })
      .finally(() => {
        backfillsRunning -= 1;
        if (backfillsRunning === 0) {
          const list = held.sort((a, b) => compareIds(a.id, b.id));
          held = [];
          deliver(list);
        }
      });
  };

  const url = connection.client.sourceStreamUrl(emitterId, channel === "" ? "emits" : "observations");
  const conn = connectSse({
    url,
    headers: () => ({ Authorization: `Bearer ${connection.apiKey()}` }),
    fetch: connection.fetch,
    watchdogMs: opts.watchdogMs,
    backoff: opts.backoff,
    onMessage: (m) => {
      const summary = toEventSummary(m.data, { messageId: m.id, emitterId, channel });
      if (!summary || (summary.metadata.name ?? "") !== channel) return;
      accept(summary);
    },
    onState: (info: SseStateInfo) => {
      if (closed && info.state !== "closed") return;
      sink.state({
        state: info.state,
        ...(info.message !== undefined ? { message: info.message } : {}),
        ...(info.status !== undefined ? { status: info.status } : {}),
        ...(info.retryInMs !== undefined ? { retryInMs: info.retryInMs } : {}),
      });
      if (info.state === "open") startBackfill();
    },
  });

  return {
    close() {
      if (closed) return;
      conn.close();
      closed = true;
    },
  };
}
