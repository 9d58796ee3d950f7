/**
 * A run that goes on later (decisions.md "Execution controls"): after a failed attempt that its
 * workflow retries, or a step's `$.flow.delay(ms)`. Its job for later is made here and stored in
 * the transaction that records the run as `retrying` or `delayed` (a JobCompletion's `delayed`
 * jobs), under `wl_<workflow>` with an id sorted by due time (dispatch.ts). When it runs, the run's
 * record is read back and the steps before the one it goes on with keep their records and results.
 */
import type { RunAttempt, RunStep, WorkflowStep } from "../../../shared/resources/index.js";
import type { InvocationJob } from "../../services.js";
import { jobIdAt, type NewJob } from "../../store/repos/jobs.js";
import type { RunRow } from "../../store/repos/runs.js";
import type { RunWorkflowStepsResult } from "../../runtime/workflow-steps.js";
import { payloadText } from "../../runtime/queue-jobs.js";
import { retryDelayMs, type Controls } from "../controls.js";
import { laterTarget } from "../dispatch.js";
import type { FinishedRun, PlannedStep, Waiting } from "./record.js";

/** The steps a job runs: a re-run's reused results, or (going on) the earlier records of the same run. */
export function planSteps(
  steps: WorkflowStep[],
  job: InvocationJob,
  resumed: RunRow | undefined,
): PlannedStep[] {
  if (!resumed || !job.resume) return steps.map((s) => ({ ...s, reused: job.rerun?.reused[s.name] }));
  const before = new Map(
    (JSON.parse(resumed.steps_json) as RunStep[]).slice(0, job.resume.from).map((s) => [s.name, s]),
  );
  return steps.map((s) => {
    const kept = before.get(s.name);
    return kept
      ? { ...s, kept, reused: { return_value: kept.return_value, exports: kept.exports } }
      : { ...s };
  });
}

export interface Continuation {
  job: NewJob;
  waiting: Waiting;
}

/** An error the next attempt may not have: a run over quota waits for no retry. */
const retryable = (code: string) => code !== "QUOTA_EXCEEDED";

/**
 * The run's job for later, when it goes on: another attempt from its failed step, or the steps
 * after a delay. Rewrites the finished run's status to `retrying` (a delay's is `delayed` already).
 */
export function continuationOf(a: {
  job: InvocationJob;
  runId: string;
  workflowId: string;
  planned: PlannedStep[];
  result: RunWorkflowStepsResult;
  run: FinishedRun;
  controls: Controls;
  attempt: number;
  now: number;
}): Continuation | undefined {
  let from: number;
  let dueMs: number;
  let attempt = a.attempt;
  if (a.result.error) {
    if (a.attempt >= a.controls.retry.max_attempts || !retryable(a.result.error.code)) return undefined;
    const failed = a.planned.findIndex((s) => s.id === a.result.error!.cellId);
    // A run stopped as a whole (a timeout) goes on from the step it was in, else its first to run.
    from =
      failed >= 0
        ? failed
        : (a.result.stoppedAt ??
          Math.max(
            0,
            a.planned.findIndex((s) => !s.kept && !s.reused),
          ));
    dueMs = a.now + retryDelayMs(a.controls.retry, a.attempt);
    attempt += 1;
    a.run.status = "retrying";
  } else if (a.result.delay) {
    from = a.result.delay.step + 1;
    dueMs = a.now + a.result.delay.ms;
  } else return undefined;
  const id = jobIdAt(dueMs);
  const { respondTo: _caller, ...rest } = a.job as InvocationJob & {
    respondTo?: string;
    id?: string;
    attempts?: number;
  };
  const later: InvocationJob = {
    ...rest,
    targetId: laterTarget(a.workflowId),
    resume: { runId: a.runId, from, attempt },
  };
  return {
    job: {
      id,
      targetId: later.targetId,
      ownerId: a.job.ownerId,
      trigger: a.job.trigger,
      payload: payloadText(later),
      runAfter: dueMs,
      sortAt: dueMs,
    },
    waiting: { jobId: id, dueMs },
  };
}

/** The run's attempts after this part of it: a part that ended an attempt adds it. */
export function attemptsAfter(
  resumed: RunRow | undefined,
  run: FinishedRun,
  attempt: number,
  startedMs: number,
  endedMs: number,
): RunAttempt[] {
  const earlier = resumed?.attempts_json ? (JSON.parse(resumed.attempts_json) as RunAttempt[]) : [];
  if (run.status === "delayed") return earlier;
  const entry: RunAttempt = {
    attempt,
    started_at_ms: startedMs,
    ended_at_ms: endedMs,
    status: run.status === "retrying" ? "error" : run.status,
    error: run.error,
  };
  return [...earlier.filter((e) => e.attempt !== attempt), entry];
}
