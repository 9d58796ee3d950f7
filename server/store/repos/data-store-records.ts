/**
 * Records of data stores. A record whose `expires_at_ms` has passed is absent to every read here
 * (each query says so) and to every write (an expired record is replaced as if there were none);
 * the sweep deletes it later. The writes that must be exact when many runs on several instances
 * make them at once are single statements: an increment adds to the value inside the UPDATE or
 * the INSERT ... ON CONFLICT DO UPDATE that reads it, so no two increments read the same value.
 */
import { sql, type Expression, type ExpressionBuilder, type SqlBool } from "kysely";
import type { Db, DialectName } from "../db.js";
import type { Database } from "../schema.js";
import type { CallKey } from "./data-store-calls.js";

export interface RecordRow {
  key: string;
  value: string;
  expires_at_ms: number | null;
}

export interface RecordPageRequest {
  limit: number;
  prefix?: string | undefined;
  /** A key: the records after it. */
  after?: string | undefined;
  /** A key: the records before it. */
  before?: string | undefined;
}

type Eb = ExpressionBuilder<Database, "data_store_records">;
const live = (eb: Eb, nowMs: number): Expression<SqlBool> =>
  eb.or([eb("expires_at_ms", "is", null), eb("expires_at_ms", ">", nowMs)]);

export class DataStoreRecordsRepo {
  constructor(
    private readonly db: Db,
    private readonly dialect: DialectName,
  ) {}

  /** The same repo over `db` (a transaction its writes join). */
  on(db: Db): DataStoreRecordsRepo {
    return new DataStoreRecordsRepo(db, this.dialect);
  }

  async get(storeId: string, key: string, nowMs: number, db: Db = this.db): Promise<RecordRow | undefined> {
    return db
      .selectFrom("data_store_records")
      .select(["key", "value", "expires_at_ms"])
      .where("store_id", "=", storeId)
      .where("key", "=", key)
      .where((eb) => live(eb, nowMs))
      .executeTakeFirst();
  }

  /** A page in ascending key order, and how many live records match the prefix. */
  async page(
    storeId: string,
    req: RecordPageRequest,
    nowMs: number,
  ): Promise<{ rows: RecordRow[]; total: number }> {
    const scoped = (eb: Eb) => {
      const conds = [eb("store_id", "=", storeId), live(eb, nowMs)];
      if (req.prefix) {
        // The range finds the prefix's keys in the index; the character count makes it exact.
        conds.push(eb("key", ">=", req.prefix));
        conds.push(eb("key", "<", `${req.prefix}\u{10FFFF}`));
        conds.push(eb(sql`substr(key, 1, ${[...req.prefix].length})`, "=", req.prefix));
      }
      return eb.and(conds);
    };
    const upward = req.before !== undefined && req.after === undefined;
    let q = this.db
      .selectFrom("data_store_records")
      .select(["key", "value", "expires_at_ms"])
      .where((eb) => {
        const conds = [scoped(eb)];
        if (req.after !== undefined) conds.push(eb("key", ">", req.after));
        if (req.before !== undefined) conds.push(eb("key", "<", req.before));
        return eb.and(conds);
      });
    q = q.orderBy("key", upward ? "desc" : "asc").limit(req.limit);
    const rows = await q.execute();
    if (upward) rows.reverse();
    const count = await this.db
      .selectFrom("data_store_records")
      .select((eb) => eb.fn.countAll<number>().as("n"))
      .where(scoped)
      .executeTakeFirstOrThrow();
    return { rows, total: Number(count.n) };
  }

  /** Every live key from `after` on, a page at a time (what `keys()` and `entries()` read). */
  async keysAfter(
    storeId: string,
    after: string | undefined,
    limit: number,
    nowMs: number,
  ): Promise<RecordRow[]> {
    return this.page(storeId, { limit, after }, nowMs).then((p) => p.rows);
  }

  /** Live records of the store other than `key`: the limit counts these when `key` would be added. */
  async countOthers(storeId: string, key: string, nowMs: number, db: Db): Promise<number> {
    const row = await db
      .selectFrom("data_store_records")
      .select((eb) => eb.fn.countAll<number>().as("n"))
      .where("store_id", "=", storeId)
      .where("key", "!=", key)
      .where((eb) => live(eb, nowMs))
      .executeTakeFirstOrThrow();
    return Number(row.n);
  }

  /** Replaces a live record's value and expiry; false when there is none (absent or expired). */
  async replaceLive(storeId: string, row: RecordRow, nowMs: number): Promise<boolean> {
    const res = await this.db
      .updateTable("data_store_records")
      .set({ value: row.value, expires_at_ms: row.expires_at_ms })
      .where("store_id", "=", storeId)
      .where("key", "=", row.key)
      .where((eb) => live(eb, nowMs))
      .executeTakeFirst();
    return Number(res.numUpdatedRows) > 0;
  }

  /** Writes the record whatever was there. */
  async upsert(storeId: string, row: RecordRow, db: Db): Promise<void> {
    await db
      .insertInto("data_store_records")
      .values({ store_id: storeId, ...row })
      .onConflict((oc) =>
        oc.columns(["store_id", "key"]).doUpdateSet({ value: row.value, expires_at_ms: row.expires_at_ms }),
      )
      .execute();
  }

  /** Writes the record only where there is none, or an expired one; whether it did. */
  async insertIfAbsent(storeId: string, row: RecordRow, nowMs: number, db: Db): Promise<boolean> {
    const out = await db
      .insertInto("data_store_records")
      .values({ store_id: storeId, ...row })
      .onConflict((oc) =>
        oc
          .columns(["store_id", "key"])
          .doUpdateSet({ value: row.value, expires_at_ms: row.expires_at_ms })
          .where("data_store_records.expires_at_ms", "<=", nowMs),
      )
      .returning("key")
      .executeTakeFirst();
    return out !== undefined;
  }

  /** Sets the value only if it still is `before` (JSON text as read); whether it did. */
  async replaceIf(
    storeId: string,
    key: string,
    before: string,
    value: string,
    nowMs: number,
  ): Promise<boolean> {
    const res = await this.db
      .updateTable("data_store_records")
      .set({ value })
      .where("store_id", "=", storeId)
      .where("key", "=", key)
      .where("value", "=", before)
      .where((eb) => live(eb, nowMs))
      .executeTakeFirst();
    return Number(res.numUpdatedRows) > 0;
  }

  /**
   * Adds `by` (JSON text of a finite number) to a live number of `userId`'s store in one
   * statement, which checks whose store it is too (code's increments: one query, not two); the
   * new value, or undefined when the record is absent, expired, not a number, or not theirs.
   */
  async incrementLive(
    userId: string,
    storeId: string,
    key: string,
    by: string,
    nowMs: number,
  ): Promise<RecordRow | undefined> {
    const res = await sql<RecordRow>`
      update data_store_records set value = ${this.added(by)}
      where store_id = ${storeId} and key = ${key}
        and (expires_at_ms is null or expires_at_ms > ${nowMs}) and ${this.isNumber()}
        and exists (select 1 from data_stores where id = ${storeId} and user_id = ${userId})
      returning key, value, expires_at_ms`.execute(this.db);
    return res.rows[0];
  }

  /**
   * incrementLive, and the call key of a run's write with its answer (the new value), in ONE
   * statement on PostgreSQL: the key's row lock is held no longer than without the key (ten
   * runs incrementing one key take turns on it). Undefined where incrementLive's would be, and
   * on SQLite (a transaction there costs no round trips). A key recorded already: a unique
   * violation, and nothing changed.
   */
  async incrementLiveRecorded(
    userId: string,
    storeId: string,
    key: string,
    by: string,
    nowMs: number,
    call: CallKey,
  ): Promise<RecordRow | undefined> {
    if (this.dialect !== "postgres") return undefined;
    const res = await sql<RecordRow>`
      with w as (
        update data_store_records set value = ${this.added(by)}
        where store_id = ${storeId} and key = ${key}
          and (expires_at_ms is null or expires_at_ms > ${nowMs}) and ${this.isNumber()}
          and exists (select 1 from data_stores where id = ${storeId} and user_id = ${userId})
        returning key, value, expires_at_ms
      ), c as (
        insert into data_store_calls (run_id, attempt, step, ordinal, result, created_ms)
        select ${call.runId}, ${call.attempt}, ${call.step}, ${call.ordinal}, w.value, ${nowMs} from w
      )
      select key, value, expires_at_ms from w`.execute(this.db);
    return res.rows[0];
  }

  /**
   * The increment that may add the key: inserts `by` where there is no record (or an expired
   * one), else adds to the number that is there, in one statement. Undefined: the value there is
   * not a number (nothing changed).
   */
  async incrementOrInsert(
    storeId: string,
    key: string,
    by: string,
    nowMs: number,
    db: Db,
  ): Promise<RecordRow | undefined> {
    const expired = sql`data_store_records.expires_at_ms is not null and data_store_records.expires_at_ms <= ${nowMs}`;
    const res = await sql<RecordRow>`
      insert into data_store_records (store_id, key, value, expires_at_ms)
      values (${storeId}, ${key}, ${this.normalised(by)}, null)
      on conflict (store_id, key) do update set
        value = case when ${expired} then excluded.value else ${this.added(by, "data_store_records.value")} end,
        expires_at_ms = case when ${expired} then null else data_store_records.expires_at_ms end
      where (${expired}) or ${this.isNumber("data_store_records.value")}
      returning key, value, expires_at_ms`.execute(db);
    return res.rows[0];
  }

  /** The new value's JSON text: the number there plus `by`, integers staying integers. */
  private added(by: string, column = "value") {
    const col = sql.raw(column);
    return this.dialect === "postgres"
      ? sql`((${col})::numeric + (${by})::numeric)::text`
      : sql`cast(json_extract(${col}, '$') + json_extract(${by}, '$') as text)`;
  }

  private normalised(by: string) {
    return this.dialect === "postgres"
      ? sql`((${by})::numeric)::text`
      : sql`cast(json_extract(${by}, '$') as text)`;
  }

  private isNumber(column = "value") {
    const col = sql.raw(column);
    return this.dialect === "postgres"
      ? sql`jsonb_typeof((${col})::jsonb) = 'number'`
      : sql`json_type(${col}) in ('integer', 'real')`;
  }

  /** A live record's expiry; whether there was one. */
  async setExpiry(storeId: string, key: string, expiresAtMs: number | null, nowMs: number): Promise<boolean> {
    const res = await this.db
      .updateTable("data_store_records")
      .set({ expires_at_ms: expiresAtMs })
      .where("store_id", "=", storeId)
      .where("key", "=", key)
      .where((eb) => live(eb, nowMs))
      .executeTakeFirst();
    return Number(res.numUpdatedRows) > 0;
  }

  /** Deletes the record; whether a live one was there. */
  async delete(storeId: string, key: string, nowMs: number): Promise<boolean> {
    const res = await this.db
      .deleteFrom("data_store_records")
      .where("store_id", "=", storeId)
      .where("key", "=", key)
      .returning("expires_at_ms")
      .execute();
    return res.some((r) => r.expires_at_ms === null || Number(r.expires_at_ms) > nowMs);
  }

  async clear(storeId: string): Promise<void> {
    await this.db.deleteFrom("data_store_records").where("store_id", "=", storeId).execute();
  }

  /** Deletes up to `limit` expired records (the sweep); how many. */
  async sweep(nowMs: number, limit: number): Promise<number> {
    const res = await sql`
      delete from data_store_records where (store_id, key) in (
        select store_id, key from data_store_records
        where expires_at_ms is not null and expires_at_ms <= ${nowMs} limit ${limit})`.execute(this.db);
    return Number(res.numAffectedRows ?? 0);
  }
}
