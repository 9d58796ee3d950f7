/**
 * A job's completion: what must commit in the same transaction as the events its run emitted,
 * so that a run's results and the end of its job are one fact (exactly once). The event store
 * applies these after the events of its commit (events/event-store.ts `commit`).
 *
 * Rows are written in one order in every transaction (jobs deleted, then runs recorded, then
 * held emits' jobs inserted, then sources' state by source id, then quota counters by user and day), after the
 * events' own rows (emitters sorted), so two instances committing on PostgreSQL never wait on
 * each other in a cycle.
 */
import type { Db } from "../db.js";
import { bulkDelete } from "../bulk.js";
import { prepared } from "../prepared.js";
import { insertJobs, type NewJob } from "./jobs.js";
import { addUsageIn } from "./quotas.js";
import { pruneRunsIn, saveRunIn, type RunRow } from "./runs.js";
import { applyStateIn, saveDedupeIn } from "./source-state.js";

export interface JobCompletion {
  /** Jobs whose runs these results are: deleted in the same transaction (none for a hook). */
  jobIds: string[];
  /** A source's `this.db` changes (JSON text; null deletes the key) and its dedupe memory. */
  state?: { sourceId: string; changes: Record<string, string | null>; dedupe?: string };
  /**
   * Jobs the run made for later: its emits held until their `delivery_ts`, one job each
   * (runtime/delayed-emits.ts). Inserted here, so a held emit exists exactly when the run's
   * other results do, and its own job stores the event with that job's completion.
   */
  delayed?: NewJob[];
  /**
   * Invocations and compute time to count against the user's daily quota, and in the stats of
   * `targetId` (the source or workflow that ran) when given.
   */
  usage?: { userId: string; day: string; invocations: number; computeMs: number; targetId?: string };
  /**
   * A workflow's run record, as it ended (workflows/runner.ts): stored with its results, so a
   * run is recorded exactly when they are; `keep` is the workflow's run retention, applied when
   * given (the runner applies it every few runs: runs/retention.ts).
   */
  run?: { row: RunRow; keep?: number };
}

/**
 * The job was already completed by someone else (its lease ran out while this run went on, and
 * another instance ran it): this transaction must not commit a second copy of its results.
 */
export class JobAlreadyCompletedError extends Error {
  constructor(readonly missing: number) {
    super(`${missing} job(s) of this run were completed elsewhere; its results are dropped`);
    this.name = "JobAlreadyCompletedError";
  }
}

const CHUNK = 300;
/** A job alone in its completion (an endpoint's run under steady load): built once. */
const deleteOne = prepared((db, $: { id: string }) => db.deleteFrom("jobs").where("id", "=", $.id));
const deleteMany = bulkDelete("jobs", "id");

/** Applies completions inside the caller's transaction; throws JobAlreadyCompletedError (roll back) when a job is gone. */
export async function applyCompletions(trx: Db, completions: JobCompletion[]): Promise<void> {
  if (completions.length === 0) return;
  const jobIds = completions.flatMap((c) => c.jobIds);
  for (let i = 0; i < jobIds.length; i += CHUNK) {
    const part = jobIds.slice(i, i + CHUNK);
    const deleted =
      part.length === 1
        ? await deleteOne.affected(trx, { id: part[0]! })
        : await deleteMany(trx, part);
    // The delete is the fence: a job deleted by another commit means its results are stored already.
    if (deleted !== part.length) throw new JobAlreadyCompletedError(part.length - deleted);
  }
  for (const c of completions) {
    if (!c.run) continue;
    await saveRunIn(trx, c.run.row);
    if (c.run.keep !== undefined) await pruneRunsIn(trx, c.run.row.workflow_id, c.run.keep);
  }
  const delayed = completions.flatMap((c) => c.delayed ?? []);
  if (delayed.length > 0) await insertJobs(trx, delayed);
  const states = completions.flatMap((c) => (c.state ? [c.state] : [])).sort((a, b) => cmp(a.sourceId, b.sourceId));
  for (const s of states) {
    await applyStateIn(trx, s.sourceId, s.changes);
    if (s.dedupe !== undefined) await saveDedupeIn(trx, s.sourceId, s.dedupe);
  }
  const usage = new Map<string, { userId: string; day: string; invocations: number; computeMs: number }>();
  for (const c of completions) {
    if (!c.usage || (c.usage.invocations === 0 && c.usage.computeMs === 0)) continue;
    const key = `${c.usage.userId}\u0000${c.usage.day}`;
    const u = usage.get(key);
    if (u) {
      u.invocations += c.usage.invocations;
      u.computeMs += c.usage.computeMs;
    } else usage.set(key, { ...c.usage });
  }
  for (const [, u] of [...usage].sort(([a], [b]) => cmp(a, b))) {
    await addUsageIn(trx, u.userId, u.day, u.invocations, u.computeMs);
  }
}

const cmp = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
