/**
 * Following a workflow's runs live (`runs -f`). The server's runs stream sends a run each time
 * one starts, changes status or ends, and keeps no backlog: a reconnect would miss what changed
 * while the connection was down. So each time the stream opens (the first time too) the newest
 * runs are read from the list, and a run is shown whenever its status differs from the last one
 * shown for it. A stream message that arrives after the list already showed the run ended (a
 * stale "running") is skipped: an ended run changes no more.
 */
import type { Client } from "../../shared/client/index.js";
import { ENDED_RUN_STATUSES, type Run, type RunStatus } from "../../shared/resources/index.js";
import { connectSse } from "../../shared/sse/index.js";
import { CliError } from "../errors.js";

export interface FollowRunsOptions {
  client: Client;
  apiKey: string;
  workflowId: string;
  /** Only runs of this status are shown (the others are still tracked). */
  status?: RunStatus;
  /** Runs already known (shown, or read and not shown): only their changes are shown. */
  known: Run[];
  signal: AbortSignal;
  onRun: (run: Run) => void;
  onStatus: (line: string) => void;
}

/** How many runs a follow remembers the status of (the oldest are forgotten first). */
const REMEMBERED = 2000;

/** Runs until the signal is aborted (resolves) or the stream can never work (rejects). */
export function followRuns(opts: FollowRunsOptions): Promise<void> {
  const known = new Map<string, RunStatus>();
  for (const r of opts.known) known.set(r.id, r.status);
  const remember = (r: Run) => {
    known.delete(r.id);
    known.set(r.id, r.status);
    if (known.size > REMEMBERED) known.delete(known.keys().next().value!);
  };
  const deliver = (r: Run) => {
    const before = known.get(r.id);
    if (before === r.status) return;
    if (before !== undefined && ENDED_RUN_STATUSES.includes(before)) return;
    remember(r);
    if (opts.status === undefined || r.status === opts.status) opts.onRun(r);
  };
  // The list read on each open and the stream's messages are handled one after the other, in order.
  let queue = Promise.resolve();
  const serially = (work: () => Promise<void> | void) => {
    queue = queue
      .then(work)
      .catch((err: unknown) => opts.onStatus(`cannot read the runs (${(err as Error).message})`));
  };
  const backfill = async () => {
    // The newest page: runs not known yet are new since the first read (or since the stream dropped).
    const page = await opts.client.listWorkflowRuns(opts.workflowId, { limit: 100 });
    for (const r of [...page.data].reverse()) deliver(r);
  };

  return new Promise((resolve, reject) => {
    let lost = false;
    const conn = connectSse({
      url: opts.client.workflowRunsStreamUrl(opts.workflowId),
      headers: { Authorization: `Bearer ${opts.apiKey}` },
      onMessage: (m) => {
        const run = m.data as Run | undefined;
        if (run && typeof run === "object" && typeof run.id === "string" && typeof run.status === "string")
          serially(() => deliver(run));
      },
      onState: (s) => {
        if (s.state === "open") {
          if (lost) opts.onStatus("reconnected; showing what changed meanwhile");
          lost = false;
          // The first open reads the list too: runs that changed between the first read and the stream.
          serially(backfill);
        } else if (s.state === "reconnecting") {
          lost = true;
          opts.onStatus(
            `connection lost (${s.message ?? "unknown reason"}); retrying in ${Math.max(1, Math.round((s.retryInMs ?? 0) / 1000))}s`,
          );
        } else if (s.state === "unauthorized" || (s.state === "closed" && s.status !== undefined)) {
          stop();
          reject(new CliError(s.message ?? `the stream ended (${s.status})`));
        }
      },
    });
    const stop = () => {
      opts.signal.removeEventListener("abort", onAbort);
      conn.close();
    };
    const onAbort = () => {
      stop();
      resolve();
    };
    if (opts.signal.aborted) onAbort();
    else opts.signal.addEventListener("abort", onAbort, { once: true });
  });
}
