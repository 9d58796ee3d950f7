/**
 * Where a workflow's runs execute, under its execution controls (decisions.md "Execution
 * controls"). The invocation queue runs one job at a time per target, with the target's lease
 * held in the database, so across every instance:
 * - A workflow without controls runs its jobs on its own target (`p_…`), in order: nothing here.
 * - With `concurrency: N` or a throttle, each job that comes in on the workflow's target is moved
 *   (in one transaction: its row deleted, the moved row inserted, the run recorded `queued`) to
 *   one of N targets `p_…~0` … `p_…~N-1`, taken in turn: at most N run at once, wherever.
 * - Under a throttle, a run about to start on its run target is admitted only if fewer than
 *   `limit` runs of the workflow started in the period before (`throttleGate`, the starts counted
 *   in `workflow_starts` under the workflow's row lock on PostgreSQL); else its job's `run_after`
 *   moves to its turn and it waits there, at the head of its target (the jobs behind it wait too:
 *   order is kept), in the durable queue: never dropped, and a restart changes nothing.
 * - A run that waits to go on (a retry, a `$.flow.delay`) has its job under `wl_<workflow id>`,
 *   its id sorted by due time so that the first due is at the head however many wait; when due
 *   it is moved to the workflow's run target like a new job (not throttled again: it started).
 */
import { newJobId, insertJobs } from "../store/repos/jobs.js";
import { isSqlite } from "../store/dialect-of.js";
import type { Db } from "../store/db.js";
import type { WriteGroup } from "../store/write-group.js";
import { admitStartIn, postponeIn, saveRunIn, setPendingJobIn, type RunRow } from "../store/repos/runs.js";
import type { InvocationJob } from "../services.js";
import { payloadText, type QueuedJob, type BatchOutcome } from "../runtime/queue-jobs.js";
import { platformStep } from "../runtime/platform-failure.js";
import { dispatched, type Controls } from "./controls.js";
import { findWorkflow } from "../store/repos/workflows.js";
import { controlsOf } from "./controls.js";
import { slotTarget, workflowOfTarget } from "./targets.js";

export { LATER_PREFIX, laterTarget, onOwnTarget, workflowOfTarget } from "./targets.js";

export interface DispatchDeps {
  writes: Pick<WriteGroup, "run">;
  /** Wakes the queue's runners of these targets (after the commit). */
  wake: (targets: string[]) => void;
}

/** Each workflow's next run target, in turn. */
const turns = new Map<string, number>();

/** The target a run of the workflow executes on now. */
export function runTarget(workflowId: string, controls: Controls): string {
  if (!dispatched(controls)) return workflowId;
  const n =
    ((turns.get(workflowId) ?? Math.floor(Math.random() * controls.concurrency)) + 1) % controls.concurrency;
  turns.set(workflowId, n);
  if (turns.size > 10_000) turns.delete(turns.keys().next().value!);
  return slotTarget(workflowId, n);
}

/** A job moved to `target`, due at `runAfter`, as the run `runId`. */
function moved(
  job: InvocationJob & { respondTo?: string | undefined },
  target: string,
  runId: string,
  runAfter: number,
  id = newJobId(),
) {
  return {
    id,
    targetId: target,
    ownerId: job.ownerId,
    trigger: job.trigger,
    payload: payloadText({ ...job, targetId: target, runId }),
    runAfter,
  };
}

/**
 * Deletes the job rows being moved and answers the ids it deleted: a row already gone was
 * cancelled, or moved by another instance, and is not moved again.
 */
async function takeJobs(trx: Db, ids: string[]): Promise<Set<string>> {
  const taken = await trx.deleteFrom("jobs").where("id", "in", ids).returning("id").execute();
  return new Set(taken.map((r) => r.id));
}

/**
 * Moves a job that came in on the workflow's own target to its run target (see the file's
 * comment), recording its run as `queued` with the moved job as the one a cancel deletes.
 */
export async function dispatchJob(
  deps: DispatchDeps,
  job: QueuedJob,
  controls: Controls,
  queuedRun: RunRow,
): Promise<{ committed: boolean }> {
  const target = runTarget(queuedRun.workflow_id, controls);
  const id = newJobId();
  const placed = await platformStep("placing the workflow's run", () =>
    deps.writes.run(async (trx) => {
      // Gone: cancelled while it waited here (the cancel recorded its run).
      if ((await takeJobs(trx, [job.id])).size === 0) return false;
      await insertJobs(trx, [moved(job, target, queuedRun.id, Date.now(), id)]);
      await saveRunIn(trx, { ...queuedRun, pending_job_id: id });
      return true;
    }),
  );
  if (placed) deps.wake([target]);
  return { committed: true };
}

/**
 * Whether a run of a throttled workflow may start now: recorded as a start if so, else its job
 * is postponed to its turn (and the caller leaves it be: the job stays, committed elsewhere).
 */
export async function throttleGate(
  deps: DispatchDeps,
  jobId: string,
  runId: string,
  workflowId: string,
  throttle: NonNullable<Controls["throttle"]>,
): Promise<boolean> {
  return platformStep("taking the throttle's turn", () =>
    deps.writes.run(async (trx) => {
      if (!isSqlite(trx))
        await trx.selectFrom("workflows").select("id").where("id", "=", workflowId).forUpdate().execute();
      const now = Date.now();
      const turn = await admitStartIn(trx, workflowId, throttle.limit, throttle.period_seconds * 1000, now);
      if (turn.admitted) return true;
      await postponeIn(trx, jobId, runId, turn.at);
      return false;
    }),
  );
}

/** The queue's handler of `wl_` targets: due jobs of waiting runs go to their workflow's run target. */
export async function moveDueJobs(deps: DispatchDeps & { db: Db }, jobs: QueuedJob[]): Promise<BatchOutcome> {
  const workflowId = workflowOfTarget(jobs[0]!.targetId);
  const wf = await platformStep("reading the workflow", () => findWorkflow(deps.db, workflowId));
  const targets = new Set<string>();
  await platformStep("moving waiting runs", () =>
    deps.writes.run(async (trx) => {
      const taken = await takeJobs(
        trx,
        jobs.map((j) => j.id),
      );
      // A deleted workflow's waiting runs go with it (the jobs are dropped above).
      if (!wf) return;
      const controls = controlsOf(wf.controls_json);
      const rows = jobs.filter((j) => taken.has(j.id)).map((j) => {
        const target = runTarget(workflowId, controls);
        targets.add(target);
        return {
          runId: j.resume?.runId ?? j.runId ?? "",
          row: moved(j, target, j.resume?.runId ?? j.runId ?? "", Date.now()),
        };
      });
      await insertJobs(
        trx,
        rows.map((r) => r.row),
      );
      for (const r of rows) if (r.runId) await setPendingJobIn(trx, r.runId, r.row.id);
    }),
  );
  deps.wake([...targets]);
  return { ran: jobs.length, committed: true };
}
