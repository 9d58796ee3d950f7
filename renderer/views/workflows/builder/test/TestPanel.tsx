/**
 * The builder's test panel, above the steps: the event to test on (a recent trigger event, a
 * run's event, or JSON typed here), "Test workflow", what the latest test did as a whole, and
 * which results are stale. When a test cannot run, the button is disabled and the reason is
 * shown beside it (and named as its description).
 */
import { useId } from "react";
import type { Run } from "../../../../../shared/resources/index.js";
import { formatDuration } from "../../../../state/format.js";
import { CodeEditor } from "../../../../ui/CodeEditor.js";
import { ErrorNote } from "../../../../ui/ErrorNote.js";
import { JsonTree } from "../../../../ui/JsonTree.js";
import { Spinner } from "../../../../ui/Spinner.js";
import { RUN_STATUS_LABELS, statusTone } from "../../runs/runText.js";
import type { EventMode, TestEvent } from "./useTestEvent.js";
import type { StepTests } from "./useStepTests.js";

/** The id of the words saying why no test can run (the steps' Test buttons name it too). */
export const testReasonId = (workflowId: string) => `test-reason-${workflowId}`;

const MODES: { mode: EventMode; label: string }[] = [
  { mode: "recent", label: "A recent trigger event" },
  { mode: "run", label: "A run's event" },
  { mode: "json", label: "JSON typed here" },
];

export function TestPanel(props: {
  tests: StepTests;
  /** Why no test can run now (besides the event), or null. */
  blocked: string | null;
  /** Names of steps whose results are stale, in order. */
  staleSteps: readonly string[];
  onTestWorkflow: () => void;
}) {
  const { tests, blocked, staleSteps } = props;
  const reasonId = testReasonId(tests.workflowId);
  const ev = tests.event;
  const reason = tests.running ? null : (blocked ?? (ev.resolved.ok ? null : ev.resolved.reason));
  return (
    <section className="test-panel" aria-labelledby={`${reasonId}-title`}>
      <h3 id={`${reasonId}-title`}>Test</h3>
      <p className="muted">
        A test runs the draft on the event chosen here. Its code runs for real (its HTTP calls too), but what
        it emits and answers is only recorded, never sent.
      </p>
      <EventChooser event={ev} disabled={tests.running !== null} />
      <div className="test-actions">
        <button
          type="button"
          className="btn primary"
          disabled={tests.running !== null || reason !== null}
          aria-describedby={reason ? reasonId : undefined}
          onClick={props.onTestWorkflow}
        >
          Test workflow
        </button>
        {tests.running && (
          <Spinner
            showLabel
            label={tests.running.kind === "workflow" ? "Testing the workflow…" : "Testing the step…"}
          />
        )}
        {reason && (
          <span id={reasonId} className="test-reason">
            {reason}
          </span>
        )}
      </div>
      <ErrorNote error={tests.error} title="The test did not run" />
      {tests.lastRun && <RunSummary run={tests.lastRun} />}
      <p className={staleSteps.length ? "stale-note" : "sr-only"} role="status" aria-live="polite">
        {staleSteps.length === 0
          ? ""
          : `Stale results (changed since their test): ${staleSteps.map((n) => `step ${n}`).join(", ")}.`}
      </p>
    </section>
  );
}

function EventChooser({ event: ev, disabled }: { event: TestEvent; disabled: boolean }) {
  const { choice, options } = ev;
  const name = useId();
  const list = choice.mode === "recent" ? options.recent : options.runs;
  return (
    <div className="test-event">
      <fieldset className="test-event-modes" disabled={disabled}>
        <legend>Test event</legend>
        {MODES.map((m) => (
          <label key={m.mode}>
            <input
              type="radio"
              name={name}
              value={m.mode}
              checked={choice.mode === m.mode}
              onChange={() => ev.setMode(m.mode)}
            />
            {m.label}
          </label>
        ))}
      </fieldset>
      <ErrorNote error={options.error} title="Could not load the events to test on" />
      {choice.mode === "json" ? (
        <div className="test-event-json">
          <CodeEditor
            label="Test event (JSON)"
            language="json"
            value={choice.json}
            onChange={(json) => ev.update({ json })}
            minHeight={80}
          />
        </div>
      ) : (
        list.length > 0 && (
          <label className="test-event-pick">
            <span>{choice.mode === "recent" ? "Recent trigger event" : "Run"}</span>
            <select
              value={ev.resolved.ok && ev.resolved.option ? ev.resolved.option.value : ""}
              disabled={disabled}
              onChange={(e) =>
                ev.update(choice.mode === "recent" ? { recent: e.target.value } : { run: e.target.value })
              }
            >
              {list.map((o) => (
                <option key={o.value} value={o.value}>
                  {o.label}
                </option>
              ))}
            </select>
          </label>
        )
      )}
      {choice.mode !== "json" && ev.resolved.ok && (
        <details className="test-event-preview">
          <summary>The event</summary>
          <JsonTree value={ev.resolved.event} label="The test event" openDepth={1} />
        </details>
      )}
    </div>
  );
}

function RunSummary({ run }: { run: Run }) {
  return (
    <p className="test-run-summary" role="status">
      Latest test: run <code>{run.id}</code>{" "}
      <span className={`status-chip tone-${statusTone(run.status)}`}>{RUN_STATUS_LABELS[run.status]}</span>
      {run.duration_ms !== null && <> in {formatDuration(run.duration_ms)}</>}
      {run.exit_reason && <> · exited: {run.exit_reason}</>}
      {run.error && !run.error.step && <> · {run.error.message}</>}
      {run.response && <> · would answer {run.response.status}</>}
    </p>
  );
}
