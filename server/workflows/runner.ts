/**
 * Runs a workflow for one invocation job (a delivered event, a request to its endpoint_url, a
 * re-run): the steps run in order in the runtime's sandbox; afterwards its emits are stored on
 * its channels, a thrown error on its `$errors` channel and the run's record (runs/record.ts),
 * in ONE transaction with the run's quota count and the deletion of its job (EventStore.commit),
 * so they are delivered after the run, a run is recorded exactly when its results are, and a run
 * whose results are stored never runs again. A run still going after START_ROW_MS is recorded
 * as `running` (a write that never overwrites a finished record: a late duplicate leaves it be).
 *
 * Under faults (decisions.md "Runs under faults"):
 * - Its steps start only past the start fence (runs/start-fence.ts), read at that moment: a run
 *   cancelled while its job sat in a batch never starts.
 * - A workflow turned off, or whose owner is disabled, parks the run's job (it waits at the head
 *   of its target, looked at again every PARK_RECHECK_MS, and at once when the workflow is turned
 *   on): never dropped. A deleted workflow's job is dropped; its run went with it.
 * - A platform failure (the sandbox itself failing, or the database failing the workflow's lookup
 *   or its results) rejects with PlatformFailure and stores nothing, so the queue retries the
 *   job: never lost, and recorded once when it runs. On the job's last attempt, and whenever the
 *   database refuses the results themselves, the run ends `error` instead (runs/platform-end.ts).
 */
import { randomUUID } from "node:crypto";
import type { RunResponse, WorkflowStep } from "../../shared/resources/index.js";
import type { Quotas } from "../quotas/quotas.js";
import type { EmitInput, EventStore } from "../services.js";
import { PlatformFailure, platformStep } from "../runtime/platform-failure.js";
import { MAX_ATTEMPTS } from "../runtime/queue.js";
import type { Db } from "../store/db.js";
import type { WriteGroup } from "../store/write-group.js";
import { invocationsTotal } from "../runtime/invoke.js";
import type { RunWorkflowSteps } from "../runtime/workflow-steps.js";
import { JobAlreadyCompletedError } from "../store/repos/completions.js";
import { jobExists } from "../store/repos/job-lookups.js";
import { isUserDisabled } from "../store/repos/users.js";
import { findWorkflow, type WorkflowRow } from "../store/repos/workflows.js";
import { findRun, recordRunStart, STARTABLE, type RunRow } from "../store/repos/runs.js";
import { parkRunIn } from "../store/repos/workflow-queue.js";
import { controlsOf, dispatched } from "./controls.js";
import { dispatchJob, onOwnTarget, throttleGate, workflowOfTarget, type DispatchDeps } from "./dispatch.js";
import { attemptsAfter, continuationOf, planSteps } from "./runs/continue.js";
import type { RunChanges } from "./runs/changes.js";
import { errorsInput, isRefusal, PLATFORM_END_CODES, platformEnder } from "./runs/platform-end.js";
import { endedRow, finishedRun, plannedSteps, queuedRow, runningRow, type PlannedStep, type RunHeader } from "./runs/record.js";
import { responseOf, type CallerAnswers } from "./runs/respond.js";
import { RetentionTurns } from "./runs/retention.js";
import { LocalStartFence, type StartFence } from "./runs/start-fence.js";
import { StartRows } from "./runs/start-rows.js";
import { VersionSteps } from "./versions/steps.js";
import { headerOf, runIdOf, sourceType, type JobOfRun } from "./runs/trigger.js";

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
  /** Where a run's start meets a cancel (shared with the runs service); default: this process's, over `db`. */
  fence?: StartFence;
  /** Forgets runs' data store call keys once a part of each is stored (it never runs again: data-stores/once.ts). */
  forgetCalls?: (runIds: string[]) => void;
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

/** A job as the runner gets it from the queue (`attempts`: its platform failures so far). */
export type RunnerJob = JobOfRun;

/**
 * Runs one job: `committed` when the job was deleted with its results, or stays where it is
 * settled (moved, postponed, parked); `waits` when it stays, due later, and the target's next
 * jobs must wait behind it.
 */
export type WorkflowJobHandler = (job: RunnerJob) => Promise<{ committed: boolean; waits?: boolean }>;

export const DEFAULT_RUN_RETENTION = 1000;

/** How long a run goes before its `running` row is written (runs that end sooner commit once). */
export const START_ROW_MS = 200;

/** How long a parked run waits before its workflow is looked at again (turning it on resumes it at once). */
export const PARK_RECHECK_MS = 30_000;

/** `headwater_invocations_total` of workflows, by outcome (labelling a sample per run showed in profiles). */
const RUNS_COUNTED = {
  ok: invocationsTotal.labels({ kind: "workflow", outcome: "ok" }),
  error: invocationsTotal.labels({ kind: "workflow", outcome: "error" }),
  quota_exceeded: invocationsTotal.labels({ kind: "workflow", outcome: "quota_exceeded" }),
};

/** Whether the queue gives the job up if this attempt fails for the platform (queue.ts). */
const lastAttempt = (job: RunnerJob): boolean => (job.attempts ?? 0) + 1 >= MAX_ATTEMPTS;

/** Returns the handler the invocation queue calls for `p_` targets. */
export function createWorkflowRunner(o: WorkflowRunnerOptions): WorkflowJobHandler {
  const log = o.log ?? (() => undefined);
  const retention = new RetentionTurns(o.retention ?? DEFAULT_RUN_RETENTION);
  const startRows = new StartRows(START_ROW_MS);
  const fence = o.fence ?? new LocalStartFence(o.db);
  const read = o.readWorkflow ?? ((id: string) => readRunnableWorkflow(o.db, id));
  const versions = new VersionSteps(o.db);
  const writeStart = o.writes
    ? (fn: (db: Db) => Promise<void>) => o.writes!.run(fn)
    : (fn: (db: Db) => Promise<void>) => fn(o.db);

  const endForPlatform = platformEnder({ db: o.db, events: o.events, read, ...(o.changes ? { changes: o.changes } : {}), ...(o.answers ? { answers: o.answers } : {}), log });

  const runJob: WorkflowJobHandler = async (job) => {
    const workflowId = workflowOfTarget(job.targetId);
    const runnable = await platformStep("reading the workflow", () => read(workflowId));
    const wf = runnable?.row;
    const caller = job.respondTo;
    // Deleted, or someone else's (a stale job): nothing to run (the queue drops the job).
    if (!wf || wf.owner_id !== job.ownerId) {
      o.answers?.finish(caller);
      return { committed: false };
    }
    // Turned off, or its owner disabled by an admin: the run waits, parked (see the file's comment).
    const paused =
      Number(wf.active) !== 1 ||
      (await platformStep("reading the workflow's owner", () => isUserDisabled(o.db, wf.owner_id)));
    if (paused) {
      o.answers?.finish(caller);
      if (!job.id) return { committed: false };
      const jobId = job.id;
      // Not parked when it was turned on meanwhile: the batch ends, and the job is read again.
      await platformStep("parking the run", () =>
        writeStart(async (db) => {
          await parkRunIn(db, wf.id, jobId, runIdOf(job), Date.now() + PARK_RECHECK_MS);
        }),
      );
      return { committed: true, waits: true };
    }
    const controls = controlsOf(wf.controls_json);
    // A run going on (a retry, after a delay) is read back; one cancelled or ended meanwhile is let go.
    const resumed = job.resume
      ? await platformStep("reading the run", () => findRun(o.db, job.resume!.runId))
      : undefined;
    if (job.resume && (!resumed || !STARTABLE.includes(resumed.status))) return { committed: false };
    const header = headerOf(job, wf, resumed);
    const steps = await platformStep("reading the workflow's version", () => versions.of(runnable, header.version!));
    const planned = planSteps(steps, job, resumed);
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
    const segmentMs = Date.now();
    const startedMs = resumed?.started_ms != null ? Number(resumed.started_ms) : segmentMs;
    // The row is made only for a follower, the fence or the start's write: most runs need none.
    const startRow = () => ({ ...runningRow(header, plannedSteps(planned), startedMs), updated_ms: segmentMs });
    // The fence, read now (not when the batch was read): a run cancelled meanwhile never starts.
    if (job.id) {
      const jobId = job.id;
      if (!(await platformStep("starting the run", () => fence.enter(jobId, startRow())))) {
        o.answers?.finish(caller);
        return { committed: false };
      }
    }
    try {
      return await runSteps(job, wf, planned, header, controls, resumed, { segmentMs, startedMs, startRow });
    } finally {
      fence.leave(header.id);
    }
  };

  const runSteps = async (
    job: RunnerJob,
    wf: WorkflowRow,
    planned: PlannedStep[],
    header: RunHeader,
    controls: ReturnType<typeof controlsOf>,
    resumed: RunRow | undefined,
    at: { segmentMs: number; startedMs: number; startRow: () => RunRow },
  ): Promise<{ committed: boolean }> => {
    const caller = job.respondTo;
    const jobIds = job.id ? [job.id] : [];
    const { segmentMs, startedMs, startRow } = at;
    const contextId = job.origin?.eventId ?? randomUUID();
    const context = {
      id: contextId,
      ts: new Date(segmentMs).toISOString(),
      workflow_id: wf.id,
      deployment_id: wf.deployment_id,
      source_type: sourceType(job),
      owner_id: wf.owner_id,
      emitter_id: job.origin?.emitterId,
      run_id: header.id,
    };
    // Followers hear of the start at once. Where the fence did not record it (SQLite), its row is
    // written only if the run is still going START_ROW_MS later (a commit of its own: most runs
    // end sooner, and their one commit records them whole), and only while its job is queued (a
    // deleted workflow's run is not made again). The end waits for that write, which never
    // overwrites a finished record. (Its version is now: a run going on after a delay was last
    // told at that part's end.)
    if (o.changes?.follows(wf.id)) o.changes.changed(startRow());
    let started: Promise<void> | undefined;
    const startTimer = fence.recordsStart
      ? undefined
      : startRows.add(() => {
          const start = startRow();
          started = writeStart(async (db) => {
            if (!job.id || (await jobExists(db, job.id))) await recordRunStart(db, start);
          }).then(
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
        // Its data store writes are made once per attempt: a crash re-run of this job is the same
        // attempt (its job comes back as it was), a retry by its retry policy a new one.
        run: { runId: header.id, attempt: header.attempt },
        // Only a caller that waits for the run is answered (`http_response: "workflow"`); in a
        // run without one (answered at once, or not triggered over HTTP) `$.respond` does nothing.
        respond: (given) => {
          if (response || !caller) return;
          response = responseOf(given);
          o.answers?.respond(caller, response);
        },
      });
    } finally {
      if (startTimer !== undefined) startRows.cancel(startTimer);
    }
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
      const stack = run.steps.find((s) => s.id === result.error!.cellId)?.error?.stack ?? "";
      inputs.push(errorsInput(job, wf, contextId, { ...result.error, stack }, header.attempt));
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
    try {
      await o.events.commit(inputs, {
        jobIds,
        run: { row, keep: retention.next(wf.id) },
        ...(later ? { delayed: [later.job] } : {}),
        ...(usage ? { usage } : {}),
      });
    } catch (err) {
      // Its job is gone: its workflow was deleted meanwhile (its runs with it), or another
      // instance ran it after this one's lease ran out. Nothing of this run is stored.
      if (err instanceof JobAlreadyCompletedError) {
        o.answers?.finish(caller);
        return { committed: true };
      }
      if (isRefusal(err)) return endForPlatform(job, PLATFORM_END_CODES.refused, err);
      o.answers?.finish(caller);
      throw new PlatformFailure(
        `storing the workflow's results failed: ${err instanceof Error ? err.message : String(err)}`,
      );
    }
    if (usage) o.quotas?.counted(usage);
    if (result.wrote) o.forgetCalls?.([header.id]);
    o.changes?.changed(row);
    if (later) o.dispatch?.wake([later.job.targetId]);
    if (unanswered) o.answers?.respond(caller, unanswered);
    o.answers?.finish(caller);
    return { committed: jobIds.length > 0 };
  };

  return async (job) => {
    try {
      return await runJob(job);
    } catch (err) {
      // The last attempt failed for the platform: the queue would give the job up and leave the
      // run waiting for nothing. It ends here instead.
      if (!(err instanceof PlatformFailure) || !job.id || !lastAttempt(job)) {
        o.answers?.finish(job.respondTo);
        throw err;
      }
      return endForPlatform(job, PLATFORM_END_CODES.failed, err);
    }
  };
}
