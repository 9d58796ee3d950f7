/**
 * The Runs tab of a workflow: its runs as they start, change and end (the list, then the live
 * feed), a filter by status, and the inspector of the open run beside them. Re-runs open the
 * new run; a cancelled run shows as cancelled at once. A server without runs gets a note saying so, and nothing else is tried.
 */
import { useState } from "react";
import type { StreamStateUpdate } from "../../../../shared/bridge.js";
import { RUN_STATUSES, type Run, type RunStatus } from "../../../../shared/resources/index.js";
import { call } from "../../../state/bridge.js";
import { absoluteTime, formatNumber } from "../../../state/format.js";
import { ErrorNote } from "../../../ui/ErrorNote.js";
import { toast } from "../../../ui/Toasts.js";
import { ConnectionPill } from "../../events/StreamStatus.js";
import { RunInspector } from "./RunInspector.js";
import { RunList } from "./RunList.js";
import { RUN_STATUS_LABELS } from "./runText.js";
import { useRuns } from "./useRuns.js";

/** A run named by when it started, as people tell runs apart (its id when it has not started). */
const runTime = (run: Run) => (run.started_at_ms === null ? run.id : absoluteTime(run.started_at_ms));

export function RunsPanel({ workflowId, openRunId }: { workflowId: string; openRunId?: string | null }) {
  const [status, setStatus] = useState<RunStatus | null>(null);
  const feed = useRuns(workflowId, status);
  const [cursorId, setCursorId] = useState<string | null>(openRunId ?? null);
  const [openId, setOpenId] = useState<string | null>(openRunId ?? null);
  // A link to a run (#/workflows/p_x/runs/<id>, as Send test event gives) opens it; a run just
  // started opens as soon as the feed brings it.
  const [linkedRunId, setLinkedRunId] = useState(openRunId ?? null);
  if ((openRunId ?? null) !== linkedRunId) {
    setLinkedRunId(openRunId ?? null);
    if (openRunId) {
      setOpenId(openRunId);
      setCursorId(openRunId);
    }
  }

  if (feed.unsupported) return <NoRunsHere />;

  // An open run stays open when the filter stops showing it (a running run that ended).
  const open = openId ? (feed.runs.find((r) => r.id === openId) ?? feed.get(openId)) : undefined;

  const rerun = async (run: Run, fromStep: string | undefined) => {
    const next = await call("rerunWorkflowRun", workflowId, run.id, fromStep ? { from_step: fromStep } : {});
    feed.add(next);
    setCursorId(next.id);
    setOpenId(next.id);
    toast(`Re-run${fromStep ? ` from ${fromStep}` : ""} of the run of ${runTime(run)}: ${RUN_STATUS_LABELS[next.status].toLowerCase()}`);
  };

  const cancel = async (run: Run) => {
    const cancelled = await call("cancelWorkflowRun", workflowId, run.id);
    // The feed reports it too; the answer shows it at once, whichever comes first.
    feed.add(cancelled);
    toast(`Run of ${runTime(cancelled)} cancelled`);
  };

  const statusWords = status ? RUN_STATUS_LABELS[status].toLowerCase() : null;
  return (
    <section className="runs-panel" aria-label="Runs">
      <div className="events-toolbar" role="toolbar" aria-label="Run controls">
        <label className="inline-label">
          <span>Status</span>
          <select
            value={status ?? ""}
            onChange={(e) => {
              setStatus(e.target.value === "" ? null : (e.target.value as RunStatus));
              setCursorId(null);
            }}
          >
            <option value="">All statuses</option>
            {RUN_STATUSES.map((s) => (
              <option key={s} value={s}>
                {RUN_STATUS_LABELS[s]}
              </option>
            ))}
          </select>
        </label>
        <ConnectionPill state={feed.state} paused={false} />
        <span className="muted count" aria-live="polite">
          {feed.loading
            ? "Loading…"
            : `${formatNumber(feed.runs.length)}${feed.hasMore ? "+" : ""} ${feed.runs.length === 1 ? "run" : "runs"}`}
        </span>
      </div>
      <ErrorNote error={feed.error} title="Could not load the runs" onRetry={feed.restart} />
      <FeedProblem state={feed.state} onRestart={feed.restart} />
      <div
        className={open ? "runs-body with-detail" : "runs-body"}
        onKeyDown={(e) => {
          if (e.key === "Escape" && open) {
            e.stopPropagation();
            setOpenId(null);
          }
        }}
      >
        <div className="runs-list">
          <RunList
            runs={feed.runs}
            cursorId={cursorId}
            openId={openId}
            onCursor={setCursorId}
            onOpen={setOpenId}
            label={`Runs of ${workflowId}${statusWords ? `, ${statusWords} only` : ""}`}
            emptyText={
              feed.loading
                ? "Loading runs…"
                : statusWords
                  ? `No ${statusWords} run.`
                  : "No runs yet. Send a request to the endpoint URL, or subscribe this workflow to a source: each run shows here as it starts."
            }
          />
          {feed.hasMore && (
            <div className="events-more">
              <button type="button" className="btn small" disabled={feed.loadingMore} onClick={feed.loadMore}>
                {feed.loadingMore ? "Loading…" : "Load older runs"}
              </button>
            </div>
          )}
        </div>
        {open && (
          <RunInspector
            key={open.id}
            listed={open}
            onClose={() => setOpenId(null)}
            onRerun={(fromStep) => rerun(open, fromStep)}
            onCancel={() => cancel(open)}
          />
        )}
      </div>
    </section>
  );
}

/** The hosted service and older servers have no runs endpoint: say so, in place of the tab. */
function NoRunsHere() {
  return (
    <section className="runs-panel" aria-label="Runs">
      <div className="empty big runs-unsupported">
        <h3>This server keeps no runs</h3>
        <p>
          Its API has no runs of workflows (it answered 404 to them), so there is nothing to inspect or re-run
          here. The workflow&apos;s emits and errors are in the Events tab.
        </p>
      </div>
    </section>
  );
}

function FeedProblem({ state, onRestart }: { state: StreamStateUpdate | null; onRestart: () => void }) {
  if (!state || (state.state !== "closed" && state.state !== "unauthorized")) return null;
  // "Stopped." is our own unwatch (leaving the tab): nothing went wrong.
  if (state.state === "closed" && (!state.message || state.message === "Stopped.")) return null;
  const title =
    state.state === "unauthorized"
      ? "The live feed was refused"
      : state.status === 404
        ? "This server has no live feed of runs"
        : "The live feed stopped";
  const words =
    state.state === "closed" && state.status === 404
      ? "New runs and changes show when you reload the list."
      : (state.message ?? "");
  return (
    <div role="alert" className="error-note">
      <div className="error-text">
        <strong>{title}</strong>
        <span>{words}</span>
      </div>
      <div className="error-actions">
        <button type="button" className="btn small" onClick={onRestart}>
          {state.status === 404 ? "Reload" : "Reconnect"}
        </button>
      </div>
    </div>
  );
}
