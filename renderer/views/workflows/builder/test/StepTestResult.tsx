/**
 * A step's latest test result, under the step in the builder: status and duration, its error
 * with the stack, what it logged, returned and exported, what it would have emitted, and the
 * answer the test run recorded (`$.respond`: on the last step the run ran). A stale result (see
 * testModel.ts) says so in words at its top and is dimmed; the words are what a screen reader reads.
 */
import type { ReactNode } from "react";
import type { RunStep } from "../../../../../shared/resources/index.js";
import { absoluteTime, formatClock, formatDuration } from "../../../../state/format.js";
import { JsonTree } from "../../../../ui/JsonTree.js";
import { STEP_STATUS_LABELS, statusTone } from "../../runs/runText.js";
import { stalenessText, type Staleness, type StepResult } from "./testModel.js";

export function StepTestResult(props: { name: string; result: StepResult; stale: Staleness }) {
  const { name, result, stale } = props;
  const s = result.step;
  return (
    <section
      className="step-test-result"
      data-stale={stale ? true : undefined}
      aria-label={`Test result of step ${name}${stale ? " (stale)" : ""}`}
    >
      <div className="step-test-head">
        <h4>Test result</h4>
        <span className={`status-chip tone-${statusTone(s.status)}`}>{STEP_STATUS_LABELS[s.status]}</span>
        {s.duration_ms !== null && <span className="muted">in {formatDuration(s.duration_ms)}</span>}
        <span className="muted">
          run <code>{result.runId}</code>
        </span>
        {stale && <span className="chip stale-chip">Stale</span>}
      </div>
      {stale && <p className="stale-note">{stalenessText(stale)} Test again to see what it does now.</p>}
      <div className="step-test-body">
        <StatusNote step={s} />
        {s.error && (
          <div className="run-error">
            <p className="run-error-line">
              <strong>{s.error.name}</strong>: {s.error.message}
            </p>
            {s.error.stack && (
              <pre className="code-block stack" tabIndex={0} aria-label={`Stack of step ${name}`}>
                {s.error.stack}
              </pre>
            )}
          </div>
        )}
        <Logs name={name} step={s} />
        {s.return_value !== undefined && (
          <Part title="Return value">
            <JsonTree value={s.return_value} label={`Return value of step ${name}`} openDepth={1} />
          </Part>
        )}
        {Object.keys(s.exports).length > 0 && (
          <Part title="Exports">
            <JsonTree value={s.exports} label={`Exports of step ${name}`} openDepth={1} />
          </Part>
        )}
        {s.emits && s.emits.length > 0 && (
          <Part title={`Would emit (${s.emits.length}, not sent)`}>
            <JsonTree
              value={s.emits.map((e) => ({ channel: e.channel || "(default)", data: e.data }))}
              label={`Emits of step ${name}`}
              openDepth={1}
            />
          </Part>
        )}
        {result.response && (
          <Part title={`Would answer ${result.response.status} (recorded, sent to nobody)`}>
            <JsonTree
              value={result.response}
              label={`Answer of the test run, after step ${name}`}
              openDepth={1}
            />
          </Part>
        )}
        {s.truncated && (
          <p className="muted">Cut at the limits a run keeps: some logs or values are not shown.</p>
        )}
      </div>
    </section>
  );
}

function StatusNote({ step: s }: { step: RunStep }) {
  if (s.status === "reused")
    return <p className="muted">Not run again: the results of an earlier test were reused.</p>;
  if (s.status === "skipped") return <p className="muted">Not run: the test ended before this step.</p>;
  if (s.status === "exited") return <p className="muted">Ended the run here ($.flow.exit).</p>;
  if (s.status === "success" && s.return_value === undefined && Object.keys(s.exports).length === 0)
    return <p className="muted">Returned nothing, exported nothing.</p>;
  return null;
}

function Logs({ name, step: s }: { name: string; step: RunStep }) {
  if (s.logs.length === 0) return null;
  return (
    <Part title={`Logs (${s.logs.length})`}>
      <ol className="run-logs" aria-label={`Logs of step ${name}`} tabIndex={0}>
        {s.logs.map((line, i) => (
          <li key={i} className={`log-line level-${line.level}`}>
            <span className="log-time" title={absoluteTime(line.ts_ms, { ms: true })}>
              {formatClock(line.ts_ms, "ms")}
            </span>
            <span className="log-level">{line.level}</span>
            <span className="log-message">{line.message}</span>
          </li>
        ))}
      </ol>
    </Part>
  );
}

function Part(props: { title: string; children: ReactNode }) {
  return (
    <div className="step-test-part">
      <h5>{props.title}</h5>
      {props.children}
    </div>
  );
}
