/**
 * Workflow runs repository (decisions.md "Workflow runs"). Every read is scoped to the owner
 * and the workflow. A run is written as `running` when it starts (insert-or-ignore: a late start
 * never overwrites a finished run) and whole in its results' transaction (an upsert, fenced
 * there by its job's delete: applyCompletions).
 */
import { sql } from "kysely";
import type { Db } from "../db.js";
import { isSqlite } from "../dialect-of.js";
import type { RunsTable } from "../tables/events.js";
import { prepared } from "../prepared.js";
import { pageByCreation, type PageRequest, type PageRows } from "./paging.js";

export type RunRow = RunsTable;

/** Statuses a run may leave for `running`: it waits, or an earlier start of it died (kill -9). */
export const STARTABLE = ["queued", "running", "retrying", "delayed"];

/** A re-run waiting in the queue. */
export async function insertQueuedRun(db: Db, row: RunRow): Promise<void> {
  await db.insertInto("runs").values(row).execute();
}

const startRun = prepared((db, $: Required<RunRow>) =>
  db
    .insertInto("runs")
    .values(allColumns($))
    .onConflict((oc) =>
      oc
        .column("id")
        .doUpdateSet({
          status: $.status,
          started_ms: $.started_ms,
          updated_ms: $.updated_ms,
          steps_json: $.steps_json,
          attempt: $.attempt,
          pending_job_id: null,
          next_at_ms: null,
        })
        .where("runs.status", "in", STARTABLE),
    ),
);

/**
 * The row of a run that starts: a finished run's row is left as it is (a late duplicate start),
 * and so is a cancelled one. True when it was written.
 */
export async function recordRunStart(db: Db, row: RunRow): Promise<boolean> {
  return (await startRun.affected(db, whole(row))) === 1;
}

/**
 * A run's start, fenced by its job (PostgreSQL, where a cancel may come from any instance): the
 * job's row is locked, then the run recorded `running` if it still waits. False when the job is
 * gone (cancelled, or its workflow deleted) or the run no longer waits: then nothing may start. A
 * cancel takes the same locks in the same order (cancelRun), so whichever commits first wins.
 */
export async function startRunFenced(db: Db, jobId: string, row: RunRow): Promise<boolean> {
  return db.transaction().execute(async (trx) => {
    const job = await trx.selectFrom("jobs").select("id").where("id", "=", jobId).forUpdate().executeTakeFirst();
    return job !== undefined && (await recordRunStart(trx, row));
  });
}

/** The columns a run's record writes after its insert (all but its id and creation time). */
type RunUpdate = Omit<RunRow, "id" | "created_ms">;

/** The values of an update, column by column (a prepared statement's arguments stand for each). */
export const updateColumns = ($: Required<RunRow>): Required<RunUpdate> => ({
  workflow_id: $.workflow_id,
  owner_id: $.owner_id,
  status: $.status,
  trigger_json: $.trigger_json,
  attempt: $.attempt,
  started_ms: $.started_ms,
  ended_ms: $.ended_ms,
  updated_ms: $.updated_ms,
  event_json: $.event_json,
  steps_json: $.steps_json,
  response_json: $.response_json,
  error_json: $.error_json,
  exit_reason: $.exit_reason,
  pending_job_id: $.pending_job_id,
  next_at_ms: $.next_at_ms,
  attempts_json: $.attempts_json,
  version: $.version,
});

/** The values of an insert: every column. */
export const allColumns = ($: Required<RunRow>): Required<RunRow> => ({
  id: $.id,
  created_ms: $.created_ms,
  ...updateColumns($),
});

// The statements of every run, built once (store/prepared.ts): a run writes its row twice.
const saveRun = prepared((db, $: Required<RunRow>) =>
  db
    .insertInto("runs")
    .values(allColumns($))
    .onConflict((oc) => oc.column("id").doUpdateSet(updateColumns($))),
);

/** Every column of a row, those a caller left out as NULL (one shape for the prepared statements). */
export const whole = (row: RunRow): Required<RunRow> => ({
  pending_job_id: null,
  next_at_ms: null,
  attempts_json: null,
  version: null,
  ...row,
});

/** The run as it ended, in its results' transaction. */
export async function saveRunIn(trx: Db, row: RunRow): Promise<void> {
  await saveRun.execute(trx, whole(row));
}

export async function getRun(
  db: Db,
  ownerId: string,
  workflowId: string,
  runId: string,
): Promise<RunRow | undefined> {
  return db
    .selectFrom("runs")
    .selectAll()
    .where("id", "=", runId)
    .where("workflow_id", "=", workflowId)
    .where("owner_id", "=", ownerId)
    .executeTakeFirst();
}

/** A run's row without its event and steps: enough to know whether it is there, and which version. */
export type RunHeadRow = Omit<RunRow, "event_json" | "steps_json">;
/** A run's row with its event and steps as their UTF-8 bytes: what its detail answers, as stored. */
export type RunRowBytes = RunHeadRow & { event_bytes: Buffer; steps_bytes: Buffer };

const HEAD_COLUMNS = [
  "id",
  "workflow_id",
  "owner_id",
  "status",
  "trigger_json",
  "attempt",
  "created_ms",
  "started_ms",
  "ended_ms",
  "updated_ms",
  "response_json",
  "error_json",
  "exit_reason",
  "pending_job_id",
  "next_at_ms",
  "attempts_json",
  "version",
] as const;

const ownRun = (db: Db, ownerId: string, workflowId: string, runId: string) =>
  db
    .selectFrom("runs")
    .where("id", "=", runId)
    .where("workflow_id", "=", workflowId)
    .where("owner_id", "=", ownerId);

const runVersion = prepared((db, $: { id: string; workflowId: string; ownerId: string }) =>
  db
    .selectFrom("runs")
    .select("updated_ms")
    .where("id", "=", $.id)
    .where("workflow_id", "=", $.workflowId)
    .where("owner_id", "=", $.ownerId),
);

/** The version of the owner's run (its `updated_ms`), or undefined when there is no such run. */
export async function getRunVersion(
  db: Db,
  ownerId: string,
  workflowId: string,
  runId: string,
): Promise<number | undefined> {
  const row = await runVersion.first(db, { id: runId, workflowId, ownerId });
  return row ? Number(row.updated_ms) : undefined;
}

/**
 * `getRun`, with the event and steps read as bytes. A run's steps can hold megabytes of logs; on
 * SQLite the cast hands them over without decoding them to a string and encoding it back for
 * the socket (a 3.5 MB run's answer: 4 ms instead of 12, measured). PostgreSQL's `convert_to`
 * would come as escaped bytea text, no cheaper than the text itself.
 */
export async function getRunBytes(
  db: Db,
  ownerId: string,
  workflowId: string,
  runId: string,
): Promise<RunRowBytes | undefined> {
  const sqlite = isSqlite(db);
  const row = await ownRun(db, ownerId, workflowId, runId)
    .select(HEAD_COLUMNS)
    .select(
      sqlite
        ? [sql<Buffer>`cast(event_json as blob)`.as("event_bytes"), sql<Buffer>`cast(steps_json as blob)`.as("steps_bytes")]
        : [sql<Buffer>`event_json`.as("event_bytes"), sql<Buffer>`steps_json`.as("steps_bytes")],
    )
    .executeTakeFirst();
  if (!row || sqlite) return row;
  const text = row as unknown as { event_bytes: string; steps_bytes: string };
  return { ...row, event_bytes: Buffer.from(text.event_bytes), steps_bytes: Buffer.from(text.steps_bytes) };
}

export async function listRuns(
  db: Db,
  ownerId: string,
  workflowId: string,
  status: string | undefined,
  req: PageRequest,
): Promise<PageRows<RunRow>> {
  return pageByCreation<RunRow>(
    db,
    "runs",
    { workflow_id: workflowId, owner_id: ownerId, ...(status ? { status } : {}) },
    req,
  );
}

/**
 * Keeps a workflow's newest `keep` runs: the older ones that have ended are deleted (one that
 * still runs or waits is kept until it ends). Two index reads when there is nothing to cut.
 */
export async function pruneRunsIn(trx: Db, workflowId: string, keep: number): Promise<void> {
  const edge = await pruneEdge.first(trx, { workflowId, keep });
  if (!edge) return;
  await pruneBefore.execute(trx, { workflowId, ms: Number(edge.created_ms), id: edge.id });
}

/** Statuses of a run not yet ended: retention leaves them be. */
const WAITING = ["queued", "running", "retrying", "delayed"];

const pruneEdge = prepared((db, $: { workflowId: string; keep: number }) =>
  db
    .selectFrom("runs")
    .select(["created_ms", "id"])
    .where("workflow_id", "=", $.workflowId)
    .orderBy("created_ms", "desc")
    .orderBy("id", "desc")
    .limit(1)
    .offset($.keep),
);
// A range on runs_workflow; the index holds the status too, so the runs that wait are kept
// without reading their rows.
const pruneBefore = prepared((db, $: { workflowId: string; ms: number; id: string }) =>
  db
    .deleteFrom("runs")
    .where("workflow_id", "=", $.workflowId)
    .where((eb) =>
      eb.or([eb("created_ms", "<", $.ms), eb.and([eb("created_ms", "=", $.ms), eb("id", "<=", $.id)])]),
    )
    .where("status", "not in", WAITING),
);

export async function deleteRunsOf(db: Db, workflowId: string): Promise<void> {
  await db.deleteFrom("runs").where("workflow_id", "=", workflowId).execute();
}

/** A run by id alone (a job resuming it carries no owner check of its own: its job was the owner's). */
export async function findRun(db: Db, runId: string): Promise<RunRow | undefined> {
  return db.selectFrom("runs").selectAll().where("id", "=", runId).executeTakeFirst();
}

/** The job a waiting run now resumes with (it moved from one target to another). */
export async function setPendingJobIn(trx: Db, runId: string, jobId: string): Promise<void> {
  await trx.updateTable("runs").set({ pending_job_id: jobId }).where("id", "=", runId).execute();
}

/** Statuses of a run that waits for its job, which a cancel deletes. */
export const CANCELLABLE = ["queued", "retrying", "delayed"];

/** A cancel's end: the run as cancelled, or why not (it started or ended; its job went or moved meanwhile). */
export type CancelOutcome = { run: RunRow } | { refused: "started" | "moved" };

class CancelRefused extends Error {
  constructor(readonly why: "started" | "moved") {
    super(why);
  }
}

/**
 * Cancels a waiting run in one transaction: its job `jobId` is deleted, then the run is recorded
 * `cancelled` (its row updated when `stored`, else made: a run still only a job). The job comes
 * first, as in every transaction that starts or moves a run (startRunFenced, the dispatcher's
 * moves): they lock the job's row and then the run's, so they never wait on each other in a cycle,
 * and a run whose start committed first is refused here (its row no longer waits).
 */
export async function cancelRun(
  db: Db,
  run: RunRow,
  jobId: string,
  stored: boolean,
  now: number,
): Promise<CancelOutcome> {
  const cancelled: RunRow = {
    ...run,
    status: "cancelled",
    ended_ms: now,
    updated_ms: now,
    next_at_ms: null,
    pending_job_id: null,
  };
  try {
    return await db.transaction().execute(async (trx) => {
      const gone = await trx.deleteFrom("jobs").where("id", "=", jobId).executeTakeFirst();
      if (Number(gone.numDeletedRows) !== 1) throw new CancelRefused("moved");
      const written = stored
        ? await trx
            .updateTable("runs")
            .set({ status: "cancelled", ended_ms: now, updated_ms: now, next_at_ms: null, pending_job_id: null })
            .where("id", "=", run.id)
            .where("status", "in", CANCELLABLE)
            .executeTakeFirst()
            .then((r) => Number(r.numUpdatedRows))
        : await trx
            .insertInto("runs")
            .values(whole(cancelled))
            .onConflict((oc) => oc.column("id").doNothing())
            .executeTakeFirst()
            .then((r) => Number(r.numInsertedOrUpdatedRows ?? 0n));
      // Its start committed first: the job's delete is rolled back with this.
      if (written !== 1) throw new CancelRefused("started");
      return { run: cancelled };
    });
  } catch (err) {
    if (err instanceof CancelRefused) return { refused: err.why };
    throw err;
  }
}

/**
 * A throttled workflow's start, now: admitted (and recorded) when fewer than `limit` runs
 * started in the period before now, else the time the next one may (the period after the
 * `limit`-th latest start). Older starts are pruned. The caller holds the workflow's row lock
 * (PostgreSQL) so that two instances take turns.
 */
export async function admitStartIn(
  trx: Db,
  workflowId: string,
  limit: number,
  periodMs: number,
  now: number,
): Promise<{ admitted: true } | { admitted: false; at: number }> {
  await trx
    .deleteFrom("workflow_starts")
    .where("workflow_id", "=", workflowId)
    .where("start_ms", "<=", now - periodMs)
    .execute();
  const latest = await trx
    .selectFrom("workflow_starts")
    .select("start_ms")
    .where("workflow_id", "=", workflowId)
    .orderBy("start_ms", "desc")
    .limit(limit)
    .execute();
  if (latest.length < limit) {
    await trx.insertInto("workflow_starts").values({ workflow_id: workflowId, start_ms: now }).execute();
    return { admitted: true };
  }
  return { admitted: false, at: Number(latest[limit - 1]!.start_ms) + periodMs };
}

/** A throttled run's job waits for its turn: the job and its run say when. */
export async function postponeIn(trx: Db, jobId: string, runId: string, at: number): Promise<void> {
  await trx.updateTable("jobs").set({ run_after: at }).where("id", "=", jobId).execute();
  await trx
    .updateTable("runs")
    .set({ next_at_ms: at, updated_ms: Date.now() })
    .where("id", "=", runId)
    .execute();
}
