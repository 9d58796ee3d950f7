/**
 * One step of a run in the inspector: its status and duration, what it logged (with each line's
 * level), its error with the stack, its return value and exports in JSON trees, and "Re-run from
 * this step".
 */
import type { Run, RunStep } from "../../../../shared/resources/index.js";
import { absoluteTime, formatClock, formatDuration } from "../../../state/format.js";
import { JsonTree } from "../../../ui/JsonTree.js";
import { STEP_STATUS_LABELS, statusTone } from "./runText.js";

export function RunStepPanel(props: {
  run: Run;
  step: RunStep;
  /** Null while a re-run is on its way (the buttons wait for it). */
  onRerunFrom: (() => void) | null;
  rerunning: boolean;
}) {
  const { run, step, onRerunFrom, rerunning } = props;
  const exportNames = Object.keys(step.exports);
  return (
    <div className="run-step">
      <div className="section-head">
        <h4>
          {step.name}{" "}
          <span className={`status-chip tone-${statusTone(step.status)}`}>
            {STEP_STATUS_LABELS[step.status]}
          </span>
        </h4>
        <button
          type="button"
          className="btn small"
          disabled={!onRerunFrom}
          onClick={onRerunFrom ?? undefined}
          title="Run this run's event again, from this step: the steps before it are not run again, their results are reused"
        >
          {rerunning ? "Re-running…" : "Re-run from this step"}
        </button>
      </div>
      <dl className="meta">
        <dt>Step ID</dt>
        <dd>
          <code>{step.id}</code>
        </dd>
        <dt>Started</dt>
        <dd>{step.started_at_ms === null ? "not started" : absoluteTime(step.started_at_ms)}</dd>
        <dt>Duration</dt>
        <dd>{step.duration_ms === null ? "—" : formatDuration(step.duration_ms)}</dd>
      </dl>
      {step.status === "reused" && (
        <p className="muted">
          Not run again: its return value and exports are those of run{" "}
          <code>{run.trigger.rerun_of ?? "before"}</code>.
        </p>
      )}
      {step.status === "skipped" && (
        <p className="muted">
          Skipped: the run ended before this step{run.exit_reason ? ` (${run.exit_reason})` : ""}.
        </p>
      )}
      {step.truncated && (
        <p className="muted">
          Cut at the limits a run keeps: some logs or values of this step are not shown.
        </p>
      )}

      {step.error && (
        <section className="run-error" aria-label={`Error of step ${step.name}`}>
          <h5>Error</h5>
          <p className="run-error-line">
            <strong>{step.error.name}</strong>: {step.error.message}
          </p>
          {step.error.stack && (
            <pre className="code-block stack" tabIndex={0} aria-label={`Stack of step ${step.name}`}>
              {step.error.stack}
            </pre>
          )}
        </section>
      )}

      <section aria-label={`Logs of step ${step.name}`}>
        <h5>Logs</h5>
        {step.logs.length === 0 ? (
          <p className="muted">Nothing logged.</p>
        ) : (
          <ol className="run-logs">
            {step.logs.map((line, i) => (
              <li key={i} className={`log-line level-${line.level}`}>
                <span className="log-time" title={absoluteTime(line.ts_ms, { ms: true })}>
                  {formatClock(line.ts_ms, "ms")}
                </span>
                <span className="log-level">{line.level}</span>
                <span className="log-message">{line.message}</span>
              </li>
            ))}
          </ol>
        )}
      </section>

      <section aria-label={`Return value of step ${step.name}`}>
        <h5>Return value</h5>
        {step.return_value === undefined ? (
          <p className="muted">Nothing returned.</p>
        ) : (
          <JsonTree value={step.return_value} label={`Return value of step ${step.name}`} />
        )}
      </section>

      <section aria-label={`Exports of step ${step.name}`}>
        <h5>Exports</h5>
        {exportNames.length === 0 ? (
          <p className="muted">No exports.</p>
        ) : (
          <JsonTree value={step.exports} label={`Exports of step ${step.name}`} />
        )}
      </section>
    </div>
  );
}
