/**
 * Reading and re-running a workflow's runs (decisions.md "Workflow runs"). Every read is scoped
 * to the owner: another user's workflow or run, or a run of another workflow, is not found.
 * A re-run is a job like any invocation: its queued run and its job are stored together, so it
 * runs once whatever happens to this process; its answer waits for its end (RERUN_WAIT_MS at
 * most) so that a caller usually sees what it did.
 */
import { jobIdOfRun, runIdOfJob } from "../../../shared/ids.js";
import type { Run, RunListQuery, WorkflowStep } from "../../../shared/resources/index.js";
import { ENDED_RUN_STATUSES, ERROR_CODES } from "../../../shared/resources/index.js";
import type { InvocationJob, InvocationQueue, RerunOrder } from "../../services.js";
import type { Db } from "../../store/db.js";
import type { PageRequest, PageRows } from "../../store/repos/paging.js";
import { ConflictError } from "../../errors.js";
import { findQueuedJob } from "../../store/repos/job-lookups.js";
import { newJobId } from "../../store/repos/jobs.js";
import {
  CANCELLABLE,
  cancelRun,
  getRun,
  getRunBytes,
  getRunVersion,
  insertQueuedRun,
  listRuns,
  type RunHeadRow,
  type RunRow,
} from "../../store/repos/runs.js";
import { payloadOf } from "../../runtime/queue-jobs.js";
import { runnableHttpEvent } from "../../runtime/http-body.js";
import { getWorkflow } from "../../store/repos/workflows.js";
import { RunAnswerCache } from "./answer-cache.js";
import type { RunChanges } from "./changes.js";
import { plannedSteps, queuedRow, runJsonBytes, runOfRow, type RunHeader } from "./record.js";
import { LocalStartFence, type StartFence } from "./start-fence.js";
import { queuedMs, triggerOf } from "./trigger.js";
import { getVersion } from "../../store/repos/workflow-versions.js";
import { parseContent } from "../versions/content.js";
import { getTestRun, listTestRuns } from "../../store/repos/test-runs.js";
import { testRunOf } from "../tests/test-runs.js";

const DATA_OPEN = Buffer.from('{"data":');
const DATA_CLOSE = Buffer.from("}");

/** A re-run the service refuses (a 400 for the API). */
export class RunInputError extends Error {}

/** How long a re-run's answer waits for the run to end before answering with it as it is. */
export const RERUN_WAIT_MS = 10_000;

/** The step statuses whose results a later step may be re-run from. */
const COMPLETED = new Set(["success", "reused"]);

export class RunService {
  constructor(
    private readonly db: Db,
    private readonly queue: Pick<InvocationQueue, "enqueueIn" | "wake">,
    readonly changes: RunChanges,
    /** Where a cancel meets the run's start (shared with the runner). */
    private readonly fence: StartFence = new LocalStartFence(db),
    /** Ended runs' answers, by default within 32 MB. */
    private readonly answers = new RunAnswerCache(32 * 1024 * 1024),
  ) {}

  /** undefined when the workflow is not the owner's. */
  async list(
    ownerId: string,
    workflowId: string,
    q: Pick<RunListQuery, "status"> & { expand?: "event" | undefined; test?: boolean | undefined },
    page: PageRequest,
  ): Promise<PageRows<Run> | undefined> {
    if (!(await getWorkflow(this.db, ownerId, workflowId))) return undefined;
    if (q.test === true) {
      const tests = await listTestRuns(this.db, ownerId, workflowId, page);
      const rows = q.status ? tests.rows.filter((r) => r.status === q.status) : tests.rows;
      return { rows: rows.map((r) => testRunOf(r, q.expand !== "event")), totalCount: tests.totalCount };
    }
    const rows = await listRuns(this.db, ownerId, workflowId, q.status, page);
    return {
      rows: rows.rows.map((r) => runOfRow(this.asRunning(r), q.expand !== "event")),
      totalCount: rows.totalCount,
    };
  }

  async get(ownerId: string, workflowId: string, runId: string): Promise<Run | undefined> {
    const stored = await getRun(this.db, ownerId, workflowId, runId);
    const row = stored ? this.asRunning(stored) : await this.fromQueue(ownerId, workflowId, runId);
    if (row) return runOfRow(row, false);
    const test = await getTestRun(this.db, ownerId, workflowId, runId);
    return test && testRunOf(test);
  }

  /**
   * A run that is still only its job on the workflow's own target (it waits behind another run,
   * or runs its first moments, before anything of it is written): readable, and cancellable,
   * from the moment its id is handed out (`x-headwater-run-id`). `queued`, or `running` once its
   * steps started here.
   */
  private async fromQueue(ownerId: string, workflowId: string, runId: string): Promise<RunRow | undefined> {
    const jobId = jobIdOfRun(runId);
    const job = jobId ? await findQueuedJob(this.db, jobId, workflowId, ownerId) : undefined;
    const wf = job && (await getWorkflow(this.db, ownerId, workflowId));
    if (!job || !wf) return undefined;
    const payload = payloadOf(job);
    // A job that names its run (a re-run, one going on) has that run's row: this is not it.
    if (payload.rerun || payload.resume || payload.runId) return undefined;
    const event = job.trigger === "http" ? runnableHttpEvent(payload.event) : payload.event;
    const header: RunHeader = {
      id: runId,
      workflowId,
      ownerId,
      trigger: triggerOf({
        trigger: job.trigger as InvocationJob["trigger"],
        origin: payload.origin,
        ...(payload.schedule !== undefined ? { schedule: payload.schedule } : {}),
      }),
      attempt: 1,
      createdMs: queuedMs(job.id),
      eventJson: JSON.stringify(event ?? null),
      version: Number(wf.version ?? 1),
    };
    return this.asRunning(queuedRow(header, plannedSteps(JSON.parse(wf.steps_json) as WorkflowStep[])));
  }

  /**
   * A run still recorded `queued` whose steps started here (its `running` row is written only if
   * it goes on past its first moments, runner.ts): shown as it is, running.
   */
  private asRunning<R extends RunHeadRow>(row: R): R {
    const started = row.status === "queued" ? this.fence.running(row.id) : undefined;
    return started === undefined ? row : { ...row, status: "running", started_ms: started };
  }

  /**
   * The API's answer to `GET …/runs/{run_id}`, `{"data": Run}`, as UTF-8 bytes: the run as stored
   * (runJsonBytes), an ended one from the cache once its row is found (answer-cache.ts). One
   * buffer, sent as it is.
   */
  async detailAnswer(ownerId: string, workflowId: string, runId: string): Promise<Buffer | undefined> {
    // Not found for this caller leaves the cache be (it may be another user's run): a run gone
    // for good is pushed out by newer answers.
    const version = await getRunVersion(this.db, ownerId, workflowId, runId);
    if (version === undefined) {
      // Still only its job in the queue, or a test run (kept apart).
      const run =
        (await this.fromQueue(ownerId, workflowId, runId).then((r) => r && runOfRow(r, false))) ??
        (await getTestRun(this.db, ownerId, workflowId, runId).then((r) => r && testRunOf(r)));
      return run && Buffer.concat([DATA_OPEN, Buffer.from(JSON.stringify(run)), DATA_CLOSE]);
    }
    const cached = this.answers.get(runId, version);
    if (cached) return cached;
    const row = await getRunBytes(this.db, ownerId, workflowId, runId);
    if (!row) return undefined;
    const bytes = runJsonBytes(this.asRunning(row), DATA_OPEN, DATA_CLOSE);
    const ended = row.ended_ms !== null && ENDED_RUN_STATUSES.includes(row.status as Run["status"]);
    if (ended) this.answers.set(runId, Number(row.updated_ms), bytes);
    return bytes;
  }

  /** The new run (undefined: workflow or run not found); RunInputError for a step it cannot start from. */
  async rerun(
    ownerId: string,
    workflowId: string,
    runId: string,
    fromStep: string | undefined,
    version?: number,
  ): Promise<Run | undefined> {
    const wf = await getWorkflow(this.db, ownerId, workflowId);
    const earlier = wf && (await getRun(this.db, ownerId, workflowId, runId));
    if (!wf || !earlier) return undefined;
    // It would wait for nothing: a workflow that is off starts no run until it is turned on.
    if (Number(wf.active) !== 1)
      throw new ConflictError(
        `workflow ${workflowId} is inactive: turn it on to re-run its runs`,
        ERROR_CODES.workflowInactive,
      );
    // The current version's steps, or those of the version it names.
    const current = Number(wf.version ?? 1);
    const named = version !== undefined && version !== current ? await getVersion(this.db, ownerId, workflowId, version) : undefined;
    if (version !== undefined && version !== current && !named)
      throw new RunInputError(`version: workflow ${workflowId} has no version ${version} (its current one is ${current})`);
    const steps = named ? parseContent(named.content_json).steps : (JSON.parse(wf.steps_json) as WorkflowStep[]);
    const order = { ...this.reuse(steps, earlier, fromStep), version: version ?? current };
    const trigger = JSON.parse(earlier.trigger_json) as Run["trigger"];
    const header: RunHeader = {
      id: order.runId,
      workflowId,
      ownerId,
      trigger: {
        type: "RERUN",
        ...pick(trigger),
        rerun_of: earlier.id,
        ...(order.fromStep ? { from_step: order.fromStep } : {}),
      },
      attempt: 1,
      createdMs: Date.now(),
      eventJson: earlier.event_json,
      version: order.version,
    };
    const jobId = newJobId();
    const queued = queuedRow(
      header,
      plannedSteps(steps.map((s) => ({ ...s, reused: order.reused[s.name] }))),
    );
    // Followed before it is queued: a run that ends at once is not missed.
    const ended = this.ended(workflowId, order.runId);
    try {
      await this.db.transaction().execute(async (trx) => {
        await insertQueuedRun(trx, { ...queued, pending_job_id: jobId });
        await this.queue.enqueueIn(trx, [
          {
            targetId: workflowId,
            ownerId,
            trigger: trigger.type === "HTTP" ? "http" : "event",
            event: JSON.parse(earlier.event_json) as unknown,
            ...(trigger.emitter_id && trigger.event_id
              ? { origin: { emitterId: trigger.emitter_id, eventId: trigger.event_id, channel: "", hops: 0 } }
              : {}),
            rerun: order,
            jobId,
          },
        ]);
      });
      this.changes.changed(queued);
      this.queue.wake([workflowId]);
      await ended.done;
    } finally {
      ended.stop();
    }
    return this.get(ownerId, workflowId, order.runId);
  }

  /**
   * Cancels a run that waits (queued, retrying, delayed): its job is deleted with the status
   * change, past the start fence (start-fence.ts), so no step of it starts after the answer.
   * undefined: not found; ConflictError: it started, or has ended.
   */
  async cancel(ownerId: string, workflowId: string, runId: string): Promise<Run | undefined> {
    // A run's job may move meanwhile (a due run to its run target, a new one placed by the
    // dispatcher): the cancel then reads the run again.
    for (let tries = 0; ; tries++) {
      const stored = await getRun(this.db, ownerId, workflowId, runId);
      const run = stored ?? (await this.fromQueue(ownerId, workflowId, runId));
      if (!run) return undefined;
      const jobId = stored ? stored.pending_job_id : jobIdOfRun(runId);
      if (!CANCELLABLE.includes(run.status) || !jobId) throw notCancellable(runId, run.status);
      const outcome = await this.fence.cancel(runId, () =>
        cancelRun(this.db, run, jobId, stored !== undefined, Date.now()),
      );
      if (outcome !== "started" && "run" in outcome) {
        this.changes.changed(outcome.run);
        return runOfRow(outcome.run, false);
      }
      if (outcome === "started" || outcome.refused === "started" || tries >= 3)
        throw notCancellable(runId, "running");
    }
  }

  /** Which earlier results a re-run from `fromStep` (a step's name or id) takes. */
  private reuse(steps: WorkflowStep[], earlier: RunRow, fromStep: string | undefined): RerunOrder {
    const runId = runIdOfJob(newJobId());
    if (fromStep === undefined) return { runId, of: earlier.id, reused: {} };
    const at = steps.findIndex((s) => s.name === fromStep || s.id === fromStep);
    if (at < 0)
      throw new RunInputError(
        `from_step: the workflow has no step "${fromStep}" (its steps: ${steps.map((s) => s.name).join(", ")})`,
      );
    const ran = new Map((JSON.parse(earlier.steps_json) as Run["steps"]).map((s) => [s.name, s]));
    const reused: RerunOrder["reused"] = {};
    for (const step of steps.slice(0, at)) {
      const was = ran.get(step.name);
      if (!was || !COMPLETED.has(was.status)) {
        throw new RunInputError(
          `from_step: step "${step.name}" did not complete in run ${earlier.id}, so a re-run cannot start after it; re-run from "${step.name}" or earlier`,
        );
      }
      reused[step.name] = { return_value: was.return_value ?? null, exports: was.exports ?? {} };
    }
    return { runId, of: earlier.id, fromStep: steps[at]!.name, reused };
  }

  /** Resolves when the run ends here or elsewhere, or after RERUN_WAIT_MS. */
  private ended(workflowId: string, runId: string): { done: Promise<void>; stop: () => void } {
    let resolve!: () => void;
    const done = new Promise<void>((r) => (resolve = r));
    const timer = setTimeout(resolve, RERUN_WAIT_MS);
    timer.unref();
    const unfollow = this.changes.follow(workflowId, (row) => {
      if (row.id === runId && ENDED_RUN_STATUSES.includes(row.status as Run["status"])) resolve();
    });
    return {
      done,
      stop: () => {
        clearTimeout(timer);
        unfollow();
        resolve();
      },
    };
  }
}

/** A trigger's origin, as a re-run of it keeps it. */
function pick(t: Run["trigger"]): Pick<Run["trigger"], "emitter_id" | "event_id"> {
  return {
    ...(t.emitter_id ? { emitter_id: t.emitter_id } : {}),
    ...(t.event_id ? { event_id: t.event_id } : {}),
  };
}

const notCancellable = (runId: string, status: string) =>
  new ConflictError(
    `run ${runId} is ${status}: only a queued, retrying or delayed run can be cancelled`,
    ERROR_CODES.runNotCancellable,
  );
