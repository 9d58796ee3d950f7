/**
 * A workflow's test runs (decisions.md "Building workflows"), in a table of their own
 * (migration 0014): production runs' lists, retention and stats never see them, and only the
 * newest TEST_RUNS_KEPT of each workflow are kept. Every read is scoped to the owner.
 */
import type { Db } from "../db.js";
import { prepared } from "../prepared.js";
import { pageByCreation, type PageRequest, type PageRows } from "./paging.js";
import { allColumns, updateColumns, whole, type RunRow } from "./runs.js";

/** Test runs kept per workflow. */
export const TEST_RUNS_KEPT = 50;

/** Writes the test run (made, or replaced whole when it ends), keeping the newest of its workflow. */
export async function saveTestRun(db: Db, row: RunRow): Promise<void> {
  await db.transaction().execute((trx) => saveTestRunIn(trx, row));
}

/** saveTestRun inside the caller's transaction (a test run's answer commits it with its quota count). */
export async function saveTestRunIn(trx: Db, row: RunRow): Promise<void> {
  await upsert.execute(trx, whole(row));
  const edge = await keptEdge.first(trx, { workflow: row.workflow_id });
  if (edge) await dropBefore.execute(trx, { workflow: row.workflow_id, createdMs: edge.created_ms, id: edge.id });
}

// On every test run's way to its answer (hot path: built once), as a production run's record.
const upsert = prepared((db, $: Required<RunRow>) =>
  db
    .insertInto("test_runs")
    .values(allColumns($))
    .onConflict((oc) => oc.column("id").doUpdateSet(updateColumns($))),
);
const keptEdge = prepared((db, $: { workflow: string }) =>
  db
    .selectFrom("test_runs")
    .select(["created_ms", "id"])
    .where("workflow_id", "=", $.workflow)
    .orderBy("created_ms", "desc")
    .orderBy("id", "desc")
    .limit(1)
    .offset(TEST_RUNS_KEPT),
);
const dropBefore = prepared((db, $: { workflow: string; createdMs: number; id: string }) =>
  db
    .deleteFrom("test_runs")
    .where("workflow_id", "=", $.workflow)
    .where((eb) =>
      eb.or([
        eb("created_ms", "<", $.createdMs),
        eb.and([eb("created_ms", "=", $.createdMs), eb("id", "<=", $.id)]),
      ]),
    ),
);

export async function getTestRun(db: Db, ownerId: string, workflowId: string, id: string): Promise<RunRow | undefined> {
  return db
    .selectFrom("test_runs")
    .selectAll()
    .where("id", "=", id)
    .where("workflow_id", "=", workflowId)
    .where("owner_id", "=", ownerId)
    .executeTakeFirst();
}

/** The workflow's test runs, newest first. */
export function listTestRuns(db: Db, ownerId: string, workflowId: string, req: PageRequest): Promise<PageRows<RunRow>> {
  return pageByCreation<RunRow>(db, "test_runs", { workflow_id: workflowId, owner_id: ownerId }, req);
}

/** The workflow's latest test run, if any. */
export async function latestTestRun(db: Db, ownerId: string, workflowId: string): Promise<RunRow | undefined> {
  return db
    .selectFrom("test_runs")
    .selectAll()
    .where("workflow_id", "=", workflowId)
    .where("owner_id", "=", ownerId)
    .orderBy("created_ms", "desc")
    .orderBy("id", "desc")
    .limit(1)
    .executeTakeFirst();
}

/** A deleted workflow's test runs. */
export async function deleteTestRunsIn(trx: Db, workflowId: string): Promise<void> {
  await trx.deleteFrom("test_runs").where("workflow_id", "=", workflowId).execute();
}
