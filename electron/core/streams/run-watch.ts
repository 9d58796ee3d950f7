/**
 * A live feed of a workflow's runs over `GET /workflows/{id}/runs/sse`: one message per run
 * start, status change and end, its data the run as in lists. The stream has no backlog, so on
 * every (re)connection the watch also reads the newest page of runs over REST and delivers it:
 * a run that started, or ended, while no stream was open still shows its latest state. A run
 * delivered twice is harmless (the renderer keeps one row per run id).
 *
 * States are the SSE client's: a server without runs answers 404, which is `closed` with
 * status 404 (the renderer says the server does not keep runs).
 */
import { ApiError } from "../../../shared/client/index.js";
import { Run } from "../../../shared/resources/index.js";
import { connectSse, type SseStateInfo } from "../../../shared/sse/index.js";
import type { RunWatchOptions, RunWatchSink, Watch } from "./types.js";

/** Runs read over REST on each (re)connection: enough to cover a short gap. */
const BACKFILL_LIMIT = 50;

export function watchRuns(opts: RunWatchOptions, sink: RunWatchSink): Watch {
  const { workflowId, connection } = opts;
  let closed = false;
  // A backfill answer older than a live message must not overwrite it: runs seen live while a
  // backfill is in flight win over its copy of them.
  let liveDuringBackfill: Set<string> | null = null;

  const backfill = async () => {
    const seenLive = new Set<string>();
    liveDuringBackfill = seenLive;
    try {
      const page = await connection.client.listWorkflowRuns(workflowId, { limit: BACKFILL_LIMIT });
      if (closed) return;
      // Oldest first, as every batch.
      const runs = page.data.filter((r) => !seenLive.has(r.id)).reverse();
      if (runs.length > 0) sink.runs(runs);
    } catch (err) {
      // The stream reports auth and reachability problems itself; a failed back-fill only means
      // a gap (if any) stays until the next reconnect.
      if (!(err instanceof ApiError && (err.status === 401 || err.status === 404))) {
        sink.log?.(`back-fill of the runs of ${workflowId} failed: ${String(err)}`);
      }
    } finally {
      if (liveDuringBackfill === seenLive) liveDuringBackfill = null;
    }
  };

  const conn = connectSse({
    url: connection.client.workflowRunsStreamUrl(workflowId),
    headers: () => ({ Authorization: `Bearer ${connection.apiKey()}` }),
    fetch: connection.fetch,
    watchdogMs: opts.watchdogMs,
    backoff: opts.backoff,
    onMessage: (m) => {
      const parsed = Run.safeParse(m.data);
      if (!parsed.success || parsed.data.workflow_id !== workflowId) {
        sink.log?.(`runs stream of ${workflowId}: a message that is not one of its runs was ignored`);
        return;
      }
      liveDuringBackfill?.add(parsed.data.id);
      sink.runs([parsed.data]);
    },
    onState: (info: SseStateInfo) => {
      if (closed && info.state !== "closed") return;
      sink.state({
        state: info.state,
        ...(info.message !== undefined ? { message: info.message } : {}),
        ...(info.status !== undefined ? { status: info.status } : {}),
        ...(info.retryInMs !== undefined ? { retryInMs: info.retryInMs } : {}),
      });
      if (info.state === "open") void backfill();
    },
  });

  return {
    close() {
      if (closed) return;
      closed = true;
      conn.close();
    },
  };
}
