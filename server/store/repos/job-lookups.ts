/**
 * Reads of one job by its id: whether it is still queued (a run's start fence, its `running`
 * row), and which one a run still waiting as its job is (runs/service.ts).
 */
import type { Db } from "../db.js";
import { prepared } from "../prepared.js";
import type { JobRow } from "./jobs.js";

const jobById = prepared((db, $: { id: string }) => db.selectFrom("jobs").select("id").where("id", "=", $.id));

/** Whether the job is still queued (a cancel or a deleted workflow deletes it). */
export async function jobExists(db: Db, id: string): Promise<boolean> {
  return (await jobById.first(db, { id })) !== undefined;
}

const jobOnTarget = prepared((db, $: { id: string; target: string; owner: string }) =>
  db
    .selectFrom("jobs")
    .selectAll()
    .where("id", "=", $.id)
    .where("target_id", "=", $.target)
    .where("owner_id", "=", $.owner),
);

/** The owner's job `id` queued on `targetId`, if it is there. */
export async function findQueuedJob(db: Db, id: string, targetId: string, ownerId: string): Promise<JobRow | undefined> {
  return jobOnTarget.first(db, { id, target: targetId, owner: ownerId });
}
