/**
 * 0008: the `jobs_run_after` index (0003) goes. No query uses it: ready targets are found per
 * target on `jobs_target` (target_id, id) with `run_after` as a filter, and the one reader of
 * `min(run_after)` was never called. Every job paid for it twice, at its insert and at its
 * delete: a job's insert and delete cost 9.0 to 10.3 µs without it against 10.5 to 13.0 µs with
 * it (better-sqlite3, groups of 32, the jobs' real shape; docs/benchmarks.md, 26 Nov).
 */
import type { Kysely } from "kysely";

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex("jobs_run_after").ifExists().execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.createIndex("jobs_run_after").ifNotExists().on("jobs").column("run_after").execute();
}
