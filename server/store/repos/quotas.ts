/** Daily quota counters. Increments are `SET x = x + ?` so concurrent servers count exactly. */
import { sql } from "kysely";
import type { Db } from "../db.js";
import { prepared } from "../prepared.js";
import { WriteGroup } from "../write-group.js";

export interface DailyUsage {
  invocations: number;
  computeMs: number;
}

// Read and counted for every batch of runs (hot path: built once).
const usageOf = prepared((db, $: { user: string; day: string }) =>
  db.selectFrom("quota_usage").select(["invocations", "compute_ms"]).where("user_id", "=", $.user).where("day", "=", $.day),
);
const addUsage = prepared((db, $: { user: string; day: string; invocations: number; computeMs: number }) =>
  db
    .insertInto("quota_usage")
    .values({ user_id: $.user, day: $.day, invocations: $.invocations, compute_ms: $.computeMs })
    .onConflict((oc) =>
      oc.columns(["user_id", "day"]).doUpdateSet({
        invocations: sql<number>`quota_usage.invocations + ${$.invocations}`,
        compute_ms: sql<number>`quota_usage.compute_ms + ${$.computeMs}`,
      }),
    ),
);

/** Adds to a user's counters of a day inside the caller's transaction. */
export async function addUsageIn(trx: Db, userId: string, day: string, invocations: number, computeMs: number): Promise<void> {
  await addUsage.execute(trx, { user: userId, day, invocations, computeMs });
}

export class QuotasRepo {
  constructor(
    private readonly db: Db,
    /** Groups counter updates with other small writes of the same turn (SQLite). */
    private readonly writes: WriteGroup = new WriteGroup(db, false),
  ) {}

  async usage(userId: string, day: string): Promise<DailyUsage> {
    const row = await usageOf.first(this.db, { user: userId, day });
    return { invocations: Number(row?.invocations ?? 0), computeMs: Number(row?.compute_ms ?? 0) };
  }

  /** Adds to today's counters, creating the row on first use. */
  async add(userId: string, day: string, invocations: number, computeMs: number): Promise<void> {
    await this.writes.run((trx) => addUsage.execute(trx, { user: userId, day, invocations, computeMs }));
  }

  /** A user's own daily limits (NULL: the server's default); undefined for no such user. */
  async overridesOf(userId: string): Promise<{ dailyInvocations: number | null; dailyComputeMs: number | null } | undefined> {
    const row = await this.db
      .selectFrom("users")
      .select(["daily_invocations_quota", "daily_compute_ms_quota"])
      .where("id", "=", userId)
      .executeTakeFirst();
    if (!row) return undefined;
    const num = (v: number | null) => (v === null ? null : Number(v));
    return { dailyInvocations: num(row.daily_invocations_quota), dailyComputeMs: num(row.daily_compute_ms_quota) };
  }

  /** Old days are of no use once they are over; keeps the table small. */
  async pruneBefore(day: string): Promise<void> {
    await this.db.deleteFrom("quota_usage").where("day", "<", day).execute();
  }
}
