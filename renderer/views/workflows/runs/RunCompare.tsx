/**
 * "Compare with the last good run" (decisions.md "Building workflows", "Compare runs"): a dialog
 * that puts the inspected run beside the workflow's newest other successful run, step by step:
 * each run's status and duration, whether the step's code differed between the versions they
 * ran (its diff below the table), and which paths of its return value and exports differ. The
 * server compares (`compareWorkflowRuns`); a workflow with no other good run says so.
 */
import { useQuery } from "@tanstack/react-query";
import type {
  ComparedRun,
  ComparedStep,
  Run,
  RunComparison,
  StepComparison,
} from "../../../../shared/resources/index.js";
import { BridgeCallError, call } from "../../../state/bridge.js";
import { absoluteTime, formatDuration } from "../../../state/format.js";
import { ErrorNote } from "../../../ui/ErrorNote.js";
import { Modal } from "../../../ui/Modal.js";
import { Loading } from "../../../ui/Spinner.js";
import { RUN_STATUS_LABELS, STEP_STATUS_LABELS, statusTone } from "./runText.js";

export function RunCompareDialog({ run, onClose }: { run: Run; onClose: () => void }) {
  const compared = useQuery({
    // Read again when the run changes (a running run ends): the comparison is of what it did.
    queryKey: ["run-compare", run.workflow_id, run.id, run.status, run.ended_at_ms],
    queryFn: () => call("compareWorkflowRuns", run.workflow_id, run.id, "last_success"),
    retry: false,
    staleTime: Infinity,
  });
  const noGoodRun = compared.error instanceof BridgeCallError && compared.error.status === 404;
  return (
    <Modal title="Compare with the last good run" onClose={onClose} wide>
      {compared.isPending && <Loading label="Comparing the runs" />}
      {noGoodRun ? (
        <p className="muted" role="status">
          This workflow has no other successful run to compare this run with yet.
        </p>
      ) : (
        <ErrorNote
          error={compared.error}
          title="Could not compare the runs"
          onRetry={() => void compared.refetch()}
        />
      )}
      {compared.data && <ComparisonView c={compared.data} />}
    </Modal>
  );
}

/** A run as the comparison names it: its status, version and when. */
function RunLine({ label, r }: { label: string; r: ComparedRun }) {
  const code =
    r.version !== null
      ? `version ${r.version}`
      : r.code_of === "draft"
        ? "a draft"
        : r.code_of === "steps"
          ? "local steps"
          : "version not recorded";
  return (
    <>
      <dt>{label}</dt>
      <dd>
        <span className={`status-chip tone-${statusTone(r.status)}`}>{RUN_STATUS_LABELS[r.status]}</span>{" "}
        <code>{r.id}</code>
        {r.test ? " (test)" : ""}, {code}
        {r.started_at_ms !== null && <span className="muted">, started {absoluteTime(r.started_at_ms)}</span>}
        {r.duration_ms !== null && <span className="muted">, {formatDuration(r.duration_ms)}</span>}
      </dd>
    </>
  );
}

export function ComparisonView({ c }: { c: RunComparison }) {
  const diffs = c.steps.filter((s) => s.code_diff !== null);
  return (
    <div className="run-compare">
      <dl className="meta">
        <RunLine label="This run" r={c.run} />
        <RunLine label="Last good run" r={c.with} />
      </dl>
      <table className="data-table compare-table">
        <caption className="sr-only">Each step in this run and in the last good run</caption>
        <thead>
          <tr>
            <th scope="col">Step</th>
            <th scope="col">This run</th>
            <th scope="col">Last good run</th>
            <th scope="col">Code</th>
            <th scope="col">Values that differ</th>
          </tr>
        </thead>
        <tbody>
          {c.steps.map((s) => (
            <tr key={s.name} className={s.status_changed || s.code_changed ? "changed" : undefined}>
              <th scope="row">
                <code>{s.name}</code>
              </th>
              <td>
                <StepSide step={s.run} absent="not in this run" />
              </td>
              <td>
                <StepSide step={s.with} absent="not in that run" />
              </td>
              <td>{codeWords(s)}</td>
              <td>
                <ValuePaths s={s} />
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      {diffs.map((s) => (
        <section key={s.name} className="diff-step" aria-label={`Code of step ${s.name}`}>
          <h3>
            Code of step <code>{s.name}</code>:{" "}
            {!s.run ? "only in the last good run" : !s.with ? "new in this run" : "changed"}
          </h3>
          <pre
            className="diff-lines"
            tabIndex={0}
            aria-label={`Changes of step ${s.name}'s code since the last good run`}
          >
            {s
              .code_diff!.replace(/\n$/, "")
              .split("\n")
              .map((line, i) => (
                <span key={i} className={`diff-line ${lineClass(line)}`}>
                  {line}
                  {"\n"}
                </span>
              ))}
          </pre>
        </section>
      ))}
    </div>
  );
}

function StepSide({ step, absent }: { step: ComparedStep | null; absent: string }) {
  if (!step) return <span className="muted">{absent}</span>;
  return (
    <>
      <span className={`status-chip tone-${statusTone(step.status)}`}>{STEP_STATUS_LABELS[step.status]}</span>{" "}
      <span className="muted small">{step.duration_ms === null ? "" : formatDuration(step.duration_ms)}</span>
    </>
  );
}

function codeWords(s: StepComparison): string {
  if (s.code_changed === null) return "not known";
  if (!s.code_changed) return "same";
  return !s.run ? "removed" : !s.with ? "added" : "changed";
}

function ValuePaths({ s }: { s: StepComparison }) {
  if (s.differing_paths === null) return <span className="muted">not compared</span>;
  if (s.differing_paths.length === 0) return <>none</>;
  return (
    <ul className="compare-paths">
      {s.differing_paths.map((p) => (
        <li key={p}>
          <code>{p}</code>
        </li>
      ))}
      {s.paths_truncated && <li className="muted">and more</li>}
    </ul>
  );
}

/** A unified diff's line as its kind: added, removed, a hunk's or the header's, or context. */
function lineClass(line: string): string {
  if (line.startsWith("+++") || line.startsWith("---") || line.startsWith("@@")) return "diff-hunk";
  if (line.startsWith("+")) return "diff-add";
  if (line.startsWith("-")) return "diff-del";
  return "diff-same";
}
