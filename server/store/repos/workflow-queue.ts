/**
 * A workflow's jobs in the invocation queue as a whole (decisions.md "Runs under faults"): a run
 * parked while its workflow is off (or its owner disabled), the parked runs resumed when it is
 * turned on, and everything queued for a deleted workflow dropped with it. The targets are
 * named by the caller (workflows/targets.ts).
 */
import type { Db } from "../db.js";
import { isSqlite } from "../dialect-of.js";
import { prepared } from "../prepared.js";

const parkJob = prepared((db, $: { id: string; until: number }) =>
  db.updateTable("jobs").set({ run_after: $.until }).where("id", "=", $.id),
);
// A run that was stopped mid-step (its worker killed, its server gone) starts over when it goes on.
const parkRun = prepared((db, $: { id: string; now: number }) =>
  db
    .updateTable("runs")
    .set({ status: "queued", started_ms: null, updated_ms: $.now })
    .where("id", "=", $.id)
    .where("status", "=", "running"),
);

/**
 * The run's job waits, at the head of its target (the jobs behind it wait too), until `until`,
 * when the runner looks at its workflow again; turning the workflow on resumes it at once
 * (resumeParkedIn). Its run shows what it waits as: queued, retrying or delayed. Only while the
 * workflow is still off (or its owner disabled), read here under the workflow's row lock: a
 * workflow turned on after the runner read it, before this, is not parked (false), so that its
 * turning on, which resumes what is parked, is never overtaken by a park.
 */
export async function parkRunIn(
  trx: Db,
  workflowId: string,
  jobId: string,
  runId: string,
  until: number,
): Promise<boolean> {
  const read = trx
    .selectFrom("workflows")
    .innerJoin("users", "users.id", "workflows.owner_id")
    .select(["workflows.active", "users.disabled"])
    .where("workflows.id", "=", workflowId);
  const wf = await (isSqlite(trx) ? read : read.forShare()).executeTakeFirst();
  if (!wf || (Number(wf.active) === 1 && Number(wf.disabled ?? 0) !== 1)) return false;
  await parkJob.execute(trx, { id: jobId, until });
  await parkRun.execute(trx, { id: runId, now: Date.now() });
  return true;
}

/**
 * The jobs of these run targets that wait for a later time go on now: parked runs, and with them
 * a throttled run's turn (the gate takes it again) or a platform failure's backoff. Not the
 * runs due later (`wl_` targets): a delay keeps its time.
 */
export async function resumeParkedIn(trx: Db, runTargets: string[], now: number): Promise<number> {
  const r = await trx
    .updateTable("jobs")
    .set({ run_after: now })
    .where("target_id", "in", runTargets)
    .where("run_after", ">", now)
    .executeTakeFirst();
  return Number(r.numUpdatedRows);
}

/** Everything queued for a deleted workflow: its jobs, their targets and its throttle's starts. */
export async function dropQueueIn(trx: Db, workflowId: string, targets: string[]): Promise<void> {
  await trx.deleteFrom("jobs").where("target_id", "in", targets).execute();
  await trx.deleteFrom("job_targets").where("target_id", "in", targets).execute();
  await trx.deleteFrom("workflow_starts").where("workflow_id", "=", workflowId).execute();
}
