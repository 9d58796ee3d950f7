/**
 * A live feed of a workflow's emits or `$errors`. Workflows have no SSE endpoint, so the watch
 * polls the newest page of `event_summaries` and delivers what it has not seen, oldest first.
 * States follow the SSE watch: connecting, open, reconnecting (with backoff after a failure),
 * unauthorized (401/403) and closed (404, or a channel workflows do not have).
 */
import { ApiError } from "../../../shared/client/index.js";
import { backoffDelay } from "../../../shared/sse/index.js";
import { RecentIds, compareIds } from "./recent-ids.js";
import type { Watch, WatchOptions, WatchSink } from "./types.js";

export function watchWorkflow(opts: WatchOptions, sink: WatchSink): Watch {
  const { emitterId, channel, connection } = opts;
  const pollMs = opts.pollIntervalMs ?? 1000;
  const seen = new RecentIds();
  let closed = false;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let lastSeen: string | undefined;
  let failures = 0;
  let open = false;

  if (channel === "$logs") {
    queueMicrotask(() => sink.state({ state: "closed", message: "Workflows have no $logs channel." }));
    return { close() {} };
  }

  const schedule = (ms: number) => {
    if (!closed) timer = setTimeout(() => void poll(), ms);
  };

  async function poll(): Promise<void> {
    try {
      const page =
        channel === "$errors"
          ? await connection.client.listWorkflowErrors(emitterId, { limit: 100 })
          : await connection.client.listWorkflowEvents(emitterId, { limit: 100 });
      if (closed) return;
      if (!open) {
        open = true;
        sink.state({ state: "open" });
      }
      failures = 0;
      const fresh = page.data
        .filter((e) => !seen.has(e.id) && (lastSeen === undefined || compareIds(e.id, lastSeen) > 0))
        .sort((a, b) => compareIds(a.id, b.id));
      for (const e of fresh) {
        seen.add(e.id);
        lastSeen = e.id;
      }
      if (fresh.length > 0) sink.events(fresh);
      schedule(pollMs);
    } catch (err) {
      if (closed) return;
      const status = err instanceof ApiError ? err.status : 0;
      const message = err instanceof Error ? err.message : String(err);
      if (status === 401 || status === 403) {
        sink.state({ state: "unauthorized", status, message: status === 401 ? `The server refused the API key (${message}).` : message });
        return;
      }
      if (status === 404) {
        sink.state({ state: "closed", status, message: `No such workflow: it may have been deleted (${message}).` });
        return;
      }
      open = false;
      const delay = backoffDelay(failures++, opts.backoff);
      sink.state({ state: "reconnecting", message, retryInMs: delay });
      schedule(delay);
    }
  }

  sink.state({ state: "connecting" });
  void poll();

  return {
    close() {
      if (closed) return;
      closed = true;
      if (timer) clearTimeout(timer);
      sink.state({ state: "closed", message: "Stopped." });
    },
  };
}
