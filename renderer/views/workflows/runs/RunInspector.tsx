/**
 * The run inspector: one run whole (read again with `getWorkflowRun`, since the list's copy has
 * its event cut at 1 KB), with its trigger event, the answer its HTTP caller got, its error, and
 * its steps, one shown at a time. A failed run opens on its failed step. "Re-run" runs the same
 * event again; each step has "Re-run from this step" (the steps before it are reused). A run
 * that waits (queued, retrying, delayed) has "Cancel"; a retried one lists its attempts. "Compare
 * with the last good run" puts it beside the workflow's newest other successful run (RunCompare).
 */
import { useQuery } from "@tanstack/react-query";
import { useState, type KeyboardEvent } from "react";
import type { Run } from "../../../../shared/resources/index.js";
import { BridgeCallError, call } from "../../../state/bridge.js";
import { absoluteTime, formatDuration, relativeTime } from "../../../state/format.js";
import { useEmitterNames } from "../../../state/queries.js";
import { CopyButton } from "../../../ui/CopyButton.js";
import { ErrorNote } from "../../../ui/ErrorNote.js";
import { JsonTree } from "../../../ui/JsonTree.js";
import { Spinner } from "../../../ui/Spinner.js";
import { RunAttempts, WaitTime } from "./RunAttempts.js";
import { RunCompareDialog } from "./RunCompare.js";
import { RunStepPanel } from "./RunStepPanel.js";
import {
  initialStepId,
  isCancellable,
  isCutEvent,
  isEnded,
  RUN_STATUS_LABELS,
  STEP_STATUS_LABELS,
  statusTone,
  triggerText,
} from "./runText.js";

export function RunInspector(props: {
  listed: Run;
  onClose: () => void;
  /** Starts a re-run (from a step's name); resolves when the server answered. */
  onRerun: (fromStep: string | undefined) => Promise<void>;
  /** Cancels the run; resolves when the server answered. */
  onCancel: () => Promise<void>;
}) {
  const { listed, onClose, onRerun, onCancel } = props;
  const names = useEmitterNames();
  // The key holds the listed status: each change the stream reports reads the whole run again.
  const full = useQuery({
    queryKey: ["run", listed.workflow_id, listed.id, listed.status, listed.ended_at_ms],
    queryFn: () => call("getWorkflowRun", listed.workflow_id, listed.id),
    staleTime: Infinity,
    retry: false,
    // While a change is read again, the previous whole copy keeps the event on screen.
    placeholderData: (previous) => previous,
  });
  const run = shownRun(listed, full.data);
  // Until a step is picked, the inspector follows the run: to its failed step when it fails.
  const [picked, setPicked] = useState<string | null>(null);
  const [rerunning, setRerunning] = useState<string | null>(null);
  const [rerunError, setRerunError] = useState<unknown>(null);
  const [cancelling, setCancelling] = useState(false);
  const [cancelError, setCancelError] = useState<unknown>(null);
  const [comparing, setComparing] = useState(false);
  const stepId = picked ?? initialStepId(run);
  const step = run.steps.find((s) => s.id === stepId);
  const setStepId = setPicked;

  const rerun = async (fromStep: string | undefined) => {
    setRerunning(fromStep ?? "");
    setRerunError(null);
    try {
      await onRerun(fromStep);
    } catch (err) {
      setRerunError(err);
    } finally {
      setRerunning(null);
    }
  };

  const cancel = async () => {
    setCancelling(true);
    setCancelError(null);
    try {
      await onCancel();
    } catch (err) {
      // 409: the run left the queue between the last update and the click.
      setCancelError(
        err instanceof BridgeCallError && err.status === 409
          ? new Error("It has already started or ended, so it can no longer be cancelled.")
          : err,
      );
    } finally {
      setCancelling(false);
    }
  };

  const onStepKey = (e: KeyboardEvent, index: number) => {
    const last = run.steps.length - 1;
    const next =
      e.key === "ArrowDown"
        ? Math.min(last, index + 1)
        : e.key === "ArrowUp"
          ? Math.max(0, index - 1)
          : e.key === "Home"
            ? 0
            : e.key === "End"
              ? last
              : null;
    if (next === null) return;
    e.preventDefault();
    const s = run.steps[next];
    if (!s) return;
    setStepId(s.id);
    document.getElementById(stepTabId(run.id, s.id))?.focus();
  };

  return (
    <aside className="run-inspector" aria-label={`Run ${run.id}`}>
      <header className="detail-head">
        <h3>
          Run{" "}
          <span className={`status-chip tone-${statusTone(run.status)}`}>
            {RUN_STATUS_LABELS[run.status]}
          </span>
        </h3>
        <div className="row-actions">
          <CopyButton text={run.id} label="Copy run ID" />
          {isCancellable(run) && (
            <button
              type="button"
              className="btn small danger"
              disabled={cancelling}
              onClick={() => void cancel()}
              title="Stop this run before it starts or goes on: its remaining steps never run"
            >
              {cancelling ? "Cancelling…" : "Cancel run"}
            </button>
          )}
          <button
            type="button"
            className="btn small"
            disabled={rerunning !== null}
            onClick={() => void rerun(undefined)}
            title="Run this run's event through the workflow again, as a new run"
          >
            {rerunning === "" ? "Re-running…" : "Re-run"}
          </button>
          <button
            type="button"
            className="btn small"
            onClick={() => setComparing(true)}
            title="What changed since the workflow's last successful run: each step's status, code and values"
          >
            Compare with the last good run
          </button>
          <button type="button" className="btn small ghost" aria-label="Close run details" onClick={onClose}>
            ×
          </button>
        </div>
      </header>
      {comparing && <RunCompareDialog run={run} onClose={() => setComparing(false)} />}
      <dl className="meta">
        <dt>ID</dt>
        <dd>
          <code>{run.id}</code>
        </dd>
        <dt>Trigger</dt>
        <dd title={run.trigger.emitter_id ?? undefined}>{triggerText(run, names)}</dd>
        {typeof run.version === "number" && (
          <>
            <dt>Workflow</dt>
            <dd>version {run.version}</dd>
          </>
        )}
        <dt>Started</dt>
        <dd>
          {run.started_at_ms === null ? (
            "not yet"
          ) : (
            <>
              {absoluteTime(run.started_at_ms)}{" "}
              <span className="muted">({relativeTime(run.started_at_ms)})</span>
            </>
          )}
        </dd>
        <dt>Duration</dt>
        <dd>
          {run.duration_ms === null
            ? isEnded(run)
              ? "—"
              : "still running"
            : formatDuration(run.duration_ms)}
        </dd>
        {run.attempt > 1 && (
          <>
            <dt>Attempt</dt>
            <dd>{run.attempt}</dd>
          </>
        )}
        {run.next_attempt_at_ms != null && (
          <>
            <dt>Next attempt</dt>
            <dd>
              <WaitTime run={run} at={run.next_attempt_at_ms} />
            </dd>
          </>
        )}
        {run.resume_at_ms != null && (
          <>
            <dt>Resumes</dt>
            <dd>
              <WaitTime run={run} at={run.resume_at_ms} />
            </dd>
          </>
        )}
      </dl>
      {full.isFetching && <Spinner label="Loading the whole run" showLabel />}
      <ErrorNote error={full.error} title="Could not load this run" onRetry={() => void full.refetch()} />
      <ErrorNote
        error={rerunError}
        title="The re-run was not started"
        onDismiss={() => setRerunError(null)}
      />
      {run.error && (
        <p className="run-summary-error" role="note">
          {run.error.step ? `Step ${run.error.step} failed` : "The run failed"}: {run.error.message}{" "}
          <span className="muted">({run.error.code})</span>
        </p>
      )}
      <ErrorNote
        error={cancelError}
        title="The run was not cancelled"
        onDismiss={() => setCancelError(null)}
      />
      {run.status === "exited" && (
        <p className="muted">Ended by $.flow.exit{run.exit_reason ? `: ${run.exit_reason}` : ""}.</p>
      )}

      <RunAttempts run={run} />

      <h4 id={`steps-${run.id}`}>Steps</h4>
      {run.steps.length === 0 ? (
        <p className="muted">No step has run yet.</p>
      ) : (
        <div className="run-steps">
          <div
            role="tablist"
            aria-orientation="vertical"
            aria-labelledby={`steps-${run.id}`}
            className="step-tabs"
          >
            {run.steps.map((s, i) => (
              <button
                key={s.id}
                id={stepTabId(run.id, s.id)}
                type="button"
                role="tab"
                aria-selected={s.id === step?.id}
                aria-controls={stepPanelId(run.id)}
                tabIndex={s.id === step?.id ? 0 : -1}
                className={s.id === step?.id ? "step-tab active" : "step-tab"}
                onClick={() => setStepId(s.id)}
                onKeyDown={(e) => onStepKey(e, i)}
              >
                <span className="step-tab-name">
                  {i + 1}. {s.name}
                </span>
                <span className={`status-chip tone-${statusTone(s.status)}`}>
                  {STEP_STATUS_LABELS[s.status]}
                </span>
                <span className="muted small">
                  {s.duration_ms === null ? "" : formatDuration(s.duration_ms)}
                </span>
              </button>
            ))}
          </div>
          {step && (
            <div role="tabpanel" id={stepPanelId(run.id)} aria-labelledby={stepTabId(run.id, step.id)}>
              <RunStepPanel
                run={run}
                step={step}
                rerunning={rerunning === step.name}
                onRerunFrom={rerunning === null ? () => void rerun(step.name) : null}
              />
            </div>
          )}
        </div>
      )}

      <section aria-labelledby={`event-${run.id}`}>
        <h4 id={`event-${run.id}`}>Trigger event</h4>
        {isCutEvent(run.event) ? (
          <p className="muted">Loading the whole event ({run.event.size.toLocaleString("en-US")} bytes)…</p>
        ) : (
          <JsonTree value={run.event} label="Trigger event" openDepth={2} />
        )}
      </section>

      <section aria-labelledby={`response-${run.id}`}>
        <h4 id={`response-${run.id}`}>HTTP response</h4>
        {run.response ? (
          <>
            <p>
              Answered <strong>{run.response.status}</strong>
            </p>
            <JsonTree value={run.response.headers} label="Response headers" openDepth={1} />
            <JsonTree value={run.response.body} label="Response body" />
          </>
        ) : (
          <p className="muted">
            {run.trigger.type === "HTTP"
              ? isEnded(run)
                ? "None from the run: its caller was answered at once, or got no answer from $.respond."
                : "Not yet: the caller waits for $.respond."
              : "None: this run was not started by an HTTP request."}
          </p>
        )}
      </section>
    </aside>
  );
}

/**
 * The run to show: the whole copy once it is as new as the listed one; meanwhile the listed one
 * (its status is the latest) with the whole copy's event, rather than the list's cut of it.
 */
function shownRun(listed: Run, whole: Run | undefined): Run {
  if (!whole || whole.id !== listed.id) return listed;
  if (whole.status === listed.status && whole.ended_at_ms === listed.ended_at_ms) return whole;
  return { ...listed, event: isCutEvent(listed.event) ? whole.event : listed.event };
}

const stepTabId = (runId: string, stepId: string) => `step-tab-${runId}-${stepId}`;
const stepPanelId = (runId: string) => `step-panel-${runId}`;
