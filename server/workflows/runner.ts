/**
 * Runs a workflow for one invocation job (a delivered event, a request to its endpoint_url, a
 * re-run): the steps run in order in the runtime's sandbox; afterwards its emits are stored on
 * its channels, a thrown error on its `$errors` channel and the run's record (runs/record.ts),
 * in ONE transaction with the run's quota count and the deletion of its job (EventStore.commit),
 * so they are delivered after the run, a run is recorded exactly when its results are, and a run
 * whose results are stored never runs again. A run still going after START_ROW_MS is recorded
 * as `running` (a write that never overwrites a finished record: a late duplicate leaves it be).
 * A platform failure (the sandbox itself failing, or the database refusing the workflow's
 * lookup, its accounts or its results) rejects with PlatformFailure and stores nothing, so the
 * invocation queue retries the job: never lost, and recorded once when it runs.
 */
import { randomUUID } from "node:crypto";
import { runIdOfJob } from "../../shared/ids.js";
import type { RunResponse, RunTrigger, WorkflowStep } from "../../shared/resources/index.js";
import { errorEvent } from "../delivery/error-event.js";
import type { Quotas } from "../quotas/quotas.js";
import type { EmitInput, EventStore, InvocationJob } from "../services.js";
import { platformStep } from "../runtime/platform-failure.js";
import type { Db } from "../store/db.js";
import type { WriteGroup } from "../store/write-group.js";
import { invocationsTotal } from "../runtime/invoke.js";
import type { RunWorkflowSteps } from "../runtime/workflow-steps.js";
import { isUserDisabled } from "../store/repos/users.js";
import { findWorkflow, type WorkflowRow } from "../store/repos/workflows.js";
import { findRun, recordRunStart, STARTABLE } from "../store/repos/runs.js";
import { controlsOf, dispatched } from "./controls.js";
import { dispatchJob, onOwnTarget, throttleGate, workflowOfTarget, type DispatchDeps } from "./dispatch.js";
import { attemptsAfter, continuationOf, planSteps } from "./runs/continue.js";
import type { RunChanges } from "./runs/changes.js";
import { endedRow, finishedRun, plannedSteps, queuedRow, runningRow, type RunHeader } from "./runs/record.js";
import { responseOf, type CallerAnswers } from "./runs/respond.js";
import { RetentionTurns } from "./runs/retention.js";
import { StartRows } from "./runs/start-rows.js";

export type { RunWorkflowSteps } from "../runtime/workflow-steps.js";

export interface WorkflowRunnerOptions {
  db: Db;
  events: EventStore;
  runSteps: RunWorkflowSteps;
  /** Counts runs (in the transaction of their results); without it runs are not counted. */
  quotas?: Pick<Quotas, "countFor" | "counted">;
  /** Where a run's start is written (SQLite shares the turn's transaction); default: the db. */
  writes?: Pick<WriteGroup, "run">;
  /** Told of each run's start and end (the runs stream, re-runs waiting for their end). */
  changes?: Pick<RunChanges, "changed" | "follows">;
  /** Answers the HTTP caller that waits for a run (`http_response: "workflow"`). */
  answers?: CallerAnswers;
  /** Runs kept per workflow (HEADWATER_RUN_RETENTION). */
  retention?: number;
  /**
   * Reads a workflow for a run; default: from the database each time. On SQLite, where every
   * change goes through this process, events/index.ts remembers them (forgotten on each change).
   */
  readWorkflow?: (id: string) => Promise<RunnableWorkflow | undefined>;
  /** Places runs under their workflow's concurrency and throttle (dispatch.ts); without it every job runs where it is. */
  dispatch?: DispatchDeps;
  log?: (msg: string, err?: unknown) => void;
}

/** A workflow as a run needs it: its row, and its steps parsed. */
export interface RunnableWorkflow {
  row: WorkflowRow;
  steps: WorkflowStep[];
}

export async function readRunnableWorkflow(db: Db, id: string): Promise<RunnableWorkflow | undefined> {
  const row = await findWorkflow(db, id);
  return row && { row, steps: JSON.parse(row.steps_json) as WorkflowStep[] };
}

/**
 * Runs one job: `committed` when the job was deleted with its results; `waits` when the job
 * stays where it is, due later (a throttle's turn), and the target's next jobs must wait behind it.
 */
export type WorkflowJobHandler = (
  job: InvocationJob & { id?: string; respondTo?: string },
) => Promise<{ committed: boolean; waits?: boolean }>;

export const DEFAULT_RUN_RETENTION = 1000;

/** How long a run goes before its `running` row is written (runs that end sooner commit once). */
export const START_ROW_MS = 200;

/** `headwater_invocations_total` of workflows, by outcome (labelling a sample per run showed in profiles). */
const RUNS_COUNTED = {
  ok: invocationsTotal.labels({ kind: "workflow", outcome: "ok" }),
  error: invocationsTotal.labels({ kind: "workflow", outcome: "error" }),
  quota_exceeded: invocationsTotal.labels({ kind: "workflow", outcome: "quota_exceeded" }),
};

function sourceType(job: InvocationJob): "SOURCE" | "WORKFLOW" | "HTTP" {
  if (job.trigger === "http") return "HTTP";
  return job.origin?.emitterId.startsWith("p_") ? "WORKFLOW" : "SOURCE";
}

function triggerOf(job: InvocationJob): RunTrigger {
  const origin = job.origin ? { emitter_id: job.origin.emitterId, event_id: job.origin.eventId } : {};
  if (job.rerun)
    return {
      type: "RERUN",
      ...origin,
      rerun_of: job.rerun.of,
      ...(job.rerun.fromStep ? { from_step: job.rerun.fromStep } : {}),
    };
  return { type: sourceType(job), ...origin };
}

/** When the job was queued (its id starts with that time), so a run lists where its event came in. */
function queuedMs(jobId: string | undefined): number {
  const ms = jobId ? Number(jobId.slice(0, 15)) : NaN;
  return Number.isFinite(ms) && ms > 0 ? ms : Date.now();
}

/** Returns the handler the invocation queue calls for `p_` targets. */
export function createWorkflowRunner(o: WorkflowRunnerOptions): WorkflowJobHandler {
  const log = o.log ?? (() => undefined);
  const retention = new RetentionTurns(o.retention ?? DEFAULT_RUN_RETENTION);
  const startRows = new StartRows(START_ROW_MS);
  const read = o.readWorkflow ?? ((id: string) => readRunnableWorkflow(o.db, id));
  const writeStart = o.writes
    ? (fn: (db: Db) => Promise<void>) => o.writes!.run(fn)
    : (fn: (db: Db) => Promise<void>) => fn(o.db);
  return async (job) => {
    const workflowId = workflowOfTarget(job.targetId);
    const runnable = await platformStep("reading the workflow", () => read(workflowId));
    const wf = runnable?.row;
    const caller = job.respondTo;
    const jobIds = job.id ? [job.id] : [];
    // Deleted, someone else's (a stale job), or paused: nothing to run (the queue drops the job).
    if (!wf || wf.owner_id !== job.ownerId || Number(wf.active) !== 1) {
      o.answers?.finish(caller);
      return { committed: false };
    }
    // Its owner is disabled by an admin: nothing of theirs runs until they are enabled.
    if (await platformStep("reading the workflow's owner", () => isUserDisabled(o.db, wf.owner_id))) {
      o.answers?.finish(caller);
      return { committed: false };
    }
    const controls = controlsOf(wf.controls_json);
    // A run going on (a retry, after a delay) is read back; one cancelled or ended meanwhile is let go.
    const resumed = job.resume
      ? await platformStep("reading the run", () => findRun(o.db, job.resume!.runId))
      : undefined;
    if (job.resume && (!resumed || !STARTABLE.includes(resumed.status))) return { committed: false };
    const planned = planSteps(runnable.steps, job, resumed);
    const header: RunHeader = {
      id:
        job.resume?.runId ??
        job.runId ??
        job.rerun?.runId ??
        (job.id ? runIdOfJob(job.id) : `r_${randomUUID().replace(/-/g, "")}`),
      workflowId: wf.id,
      ownerId: wf.owner_id,
      trigger: resumed ? (JSON.parse(resumed.trigger_json) as RunTrigger) : triggerOf(job),
      attempt: job.resume?.attempt ?? 1,
      createdMs: resumed ? Number(resumed.created_ms) : queuedMs(job.id),
      eventJson: resumed?.event_json ?? JSON.stringify(job.event ?? null),
    };
    // Under concurrency or a throttle a new job is first placed on a run target (dispatch.ts).
    if (o.dispatch && job.id && onOwnTarget(job.targetId) && !job.resume && dispatched(controls)) {
      return dispatchJob(
        o.dispatch,
        { ...job, id: job.id, attempts: 0 },
        controls,
        queuedRow(header, plannedSteps(planned)),
      );
    }
    // Under a throttle a new run starts only in its turn; else its job waits (and stays).
    if (o.dispatch && job.id && !job.resume && controls.throttle && !onOwnTarget(job.targetId)) {
      if (!(await throttleGate(o.dispatch, job.id, header.id, wf.id, controls.throttle)))
        return { committed: true, waits: true };
    }
    const contextId = job.origin?.eventId ?? randomUUID();
    const now = new Date();
    const context = {
      id: contextId,
      ts: now.toISOString(),
      workflow_id: wf.id,
      deployment_id: wf.deployment_id,
      source_type: sourceType(job),
      owner_id: wf.owner_id,
      emitter_id: job.origin?.emitterId,
      run_id: header.id,
    };
    const segmentMs = Date.now();
    const startedMs = resumed?.started_ms != null ? Number(resumed.started_ms) : segmentMs;
    // Followers hear of the start at once; its row is written only if the run is still going
    // START_ROW_MS later (a commit of its own: most runs end sooner, and their one commit records
    // them whole). The end waits for that write, which never overwrites a finished record.
    // (Its version is now: a run going on after a delay was last told at that part's end.)
    // The row is made only for a follower or for that write: most runs need neither.
    const startRow = () => ({ ...runningRow(header, plannedSteps(planned), startedMs), updated_ms: segmentMs });
    if (o.changes?.follows(wf.id)) o.changes.changed(startRow());
    let started: Promise<void> | undefined;
    const startTimer = startRows.add(() => {
      const start = startRow();
      started = writeStart((db) => recordRunStart(db, start)).then(
        () => undefined,
        (err: unknown) => log(`recording the start of run ${header.id} failed`, err),
      );
    });
    let response: RunResponse | null = null;
    let result;
    try {
      result = await o.runSteps({
        steps: planned,
        triggerEvent: job.event,
        context,
        ownerId: wf.owner_id,
        // Only a caller that waits for the run is answered (`http_response: "workflow"`); in a
        // run without one (answered at once, or not triggered over HTTP) `$.respond` does nothing.
        respond: (given) => {
          if (response || !caller) return;
          response = responseOf(given);
          o.answers?.respond(caller, response);
        },
      });
    } catch (err) {
      // A platform failure: the queue runs the job again, but this caller is let go.
      startRows.cancel(startTimer);
      o.answers?.finish(caller);
      throw err;
    }
    startRows.cancel(startTimer);
    // After the start's version (a follower takes each version of a run once).
    const endedMs = Math.max(Date.now(), segmentMs + 1);
    RUNS_COUNTED[!result.error ? "ok" : result.error.code === "QUOTA_EXCEEDED" ? "quota_exceeded" : "error"].inc();
    const hops = job.origin?.hops ?? 0;
    const inputs: EmitInput[] = result.emits.map((e) => ({
      emitterId: wf.id,
      ownerId: wf.owner_id,
      channel: e.channel === "default" ? "" : e.channel,
      event: e.data,
      hops,
    }));
    const run = finishedRun(planned, result);
    // A retry or a delay: the run waits for its job for later (and nothing goes to $errors yet).
    const later = continuationOf({
      job,
      runId: header.id,
      workflowId: wf.id,
      planned,
      result,
      run,
      controls,
      attempt: header.attempt,
      now: endedMs,
    });
    if (result.error && !later) {
      inputs.push({
        emitterId: wf.id,
        ownerId: wf.owner_id,
        channel: "$errors",
        hops,
        event: errorEvent({
          listenerId: wf.id,
          deploymentId: wf.deployment_id,
          ownerId: wf.owner_id,
          originalEvent: job.event,
          contextId,
          sourceType: sourceType(job),
          code: result.error.code,
          message: result.error.message,
          cellId: result.error.cellId,
          stack: run.steps.find((s) => s.id === result.error!.cellId)?.error?.stack ?? "",
          attempts: header.attempt,
          now: new Date(),
        }),
      });
    }
    // The caller that waits and was not answered: 204 when the run ended well, 502 when it
    // failed, 202 when it waits to go on (after the commit: a run whose results fail to store
    // runs again, and may yet respond).
    const unanswered =
      caller && !response && o.answers ? o.answers.unanswered(header.id, run.status) : undefined;
    if (unanswered) response = unanswered;
    const usage = result.ran ? o.quotas?.countFor(wf.owner_id, result.computeMs ?? 0, 1, wf.id) : undefined;
    const attempts = attemptsAfter(resumed, run, header.attempt, segmentMs, endedMs);
    const row = endedRow(
      header,
      run,
      startedMs,
      endedMs,
      response ?? (resumed?.response_json ? (JSON.parse(resumed.response_json) as RunResponse) : null),
      attempts,
      later?.waiting,
    );
    if (started) await started;
    await platformStep("storing the workflow's results", () =>
      o.events.commit(inputs, {
        jobIds,
        run: { row, keep: retention.next(wf.id) },
        ...(later ? { delayed: [later.job] } : {}),
        ...(usage ? { usage } : {}),
      }),
    );
    if (usage) o.quotas?.counted(usage);
    o.changes?.changed(row);
    if (later) o.dispatch?.wake([later.job.targetId]);
    if (unanswered) o.answers?.respond(caller, unanswered);
    o.answers?.finish(caller);
    return { committed: jobIds.length > 0 };
  };
}
