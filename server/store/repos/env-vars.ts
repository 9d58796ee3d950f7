/**
 * Users' environment variables. Every read and write is scoped to the owner; the runtime reads a
 * user's whole set (`forRun`), rotation reads sealed rows across users a page at a time.
 */
import { sql, type Selectable } from "kysely";
import type { Db, DialectName } from "../db.js";
import type { EnvVarsTable } from "../tables/env.js";
import { notifyUserChangedIn } from "./cluster.js";

export type EnvVarRow = Selectable<EnvVarsTable>;
export type SealedEnvRow = Pick<EnvVarRow, "user_id" | "name" | "sealed" | "key_id">;

export class EnvVarsRepo {
  constructor(
    private readonly db: Db,
    private readonly dialect: DialectName,
  ) {}

  /**
   * One change of a user's variables, in a transaction that holds the user's row (PostgreSQL),
   * so that two changes at once count the same set one after the other (the limit per user).
   * `changeId` names the change in the notification to the other instances (cluster/user-changes.ts).
   */
  change<T>(userId: string, changeId: string, fn: (trx: Db) => Promise<T>): Promise<T> {
    return this.db.transaction().execute(async (trx) => {
      if (this.dialect === "postgres") {
        await trx.selectFrom("users").select("id").where("id", "=", userId).forUpdate().execute();
      }
      const out = await fn(trx);
      if (this.dialect === "postgres") await notifyUserChangedIn(trx, userId, changeId);
      return out;
    });
  }

  async listOwn(userId: string, db: Db = this.db): Promise<EnvVarRow[]> {
    return db.selectFrom("env_vars").selectAll().where("user_id", "=", userId).orderBy("name").execute();
  }

  async findOwn(userId: string, name: string, db: Db = this.db): Promise<EnvVarRow | undefined> {
    return db
      .selectFrom("env_vars")
      .selectAll()
      .where("user_id", "=", userId)
      .where("name", "=", name)
      .executeTakeFirst();
  }

  async countOwn(userId: string, db: Db = this.db): Promise<number> {
    const row = await db
      .selectFrom("env_vars")
      .select((eb) => eb.fn.countAll<number>().as("n"))
      .where("user_id", "=", userId)
      .executeTakeFirst();
    return Number(row?.n ?? 0);
  }

  /** Inserts the row, or replaces the value (and secrecy) of the one of that name; `created_at` is kept. */
  async upsert(row: EnvVarRow, db: Db = this.db): Promise<void> {
    await db
      .insertInto("env_vars")
      .values(row)
      .onConflict((oc) =>
        oc.columns(["user_id", "name"]).doUpdateSet({
          secret: row.secret,
          value: row.value,
          sealed: row.sealed,
          key_id: row.key_id,
          updated_at: row.updated_at,
        }),
      )
      .execute();
  }

  /**
   * SQLite, before a plain variable becomes a secret: its plain value is overwritten where it
   * lies (a value of the same size is written over the old one in place, overflow pages
   * included), so the row's old text is not left in the page once the secret replaces it.
   */
  async overwritePlain(row: Pick<EnvVarRow, "user_id" | "name">, bytes: number, db: Db): Promise<void> {
    if (this.dialect !== "sqlite") return;
    await db
      .updateTable("env_vars")
      .set({ value: "x".repeat(bytes) })
      .where("user_id", "=", row.user_id)
      .where("name", "=", row.name)
      .execute();
  }

  /**
   * SQLite: every page copied from the WAL into the database file and the WAL emptied, so that
   * no earlier version of a page (one that held a plain value since made secret) stays in it.
   * Whether it got there: readers of an old snapshot can hold a checkpoint up.
   */
  async emptyWal(): Promise<boolean> {
    if (this.dialect !== "sqlite") return true;
    const res = await sql<{ busy: number }>`PRAGMA wal_checkpoint(TRUNCATE)`.execute(this.db);
    return Number(res.rows[0]?.busy ?? 0) === 0;
  }

  /** Whether there was one to delete. */
  async delete(userId: string, name: string, db: Db = this.db): Promise<boolean> {
    const res = await db
      .deleteFrom("env_vars")
      .where("user_id", "=", userId)
      .where("name", "=", name)
      .executeTakeFirst();
    return Number(res.numDeletedRows) > 0;
  }

  /** What a run needs: every variable of the user, a secret's sealed. */
  async forRun(userId: string): Promise<Array<Pick<EnvVarRow, "name" | "secret" | "value" | "sealed">>> {
    return this.db
      .selectFrom("env_vars")
      .select(["name", "secret", "value", "sealed"])
      .where("user_id", "=", userId)
      .orderBy("name")
      .execute();
  }

  /** Secrets sealed with a key other than `keyId`, a page at a time after (user, name) (rotation). */
  async sealedNotWith(
    keyId: string,
    after: { userId: string; name: string },
    limit: number,
  ): Promise<SealedEnvRow[]> {
    return this.db
      .selectFrom("env_vars")
      .select(["user_id", "name", "sealed", "key_id"])
      .where("secret", "=", 1)
      .where("key_id", "!=", keyId)
      .where((eb) =>
        eb.or([
          eb("user_id", ">", after.userId),
          eb.and([eb("user_id", "=", after.userId), eb("name", ">", after.name)]),
        ]),
      )
      .orderBy("user_id")
      .orderBy("name")
      .limit(limit)
      .execute();
  }

  /** Re-seals one secret only if it still holds `sealedBefore` (a rotation racing a change loses). */
  async reseal(
    row: Pick<EnvVarRow, "user_id" | "name">,
    sealedBefore: string,
    sealed: string,
    keyId: string,
  ): Promise<boolean> {
    const res = await this.db
      .updateTable("env_vars")
      .set({ sealed, key_id: keyId })
      .where("user_id", "=", row.user_id)
      .where("name", "=", row.name)
      .where("sealed", "=", sealedBefore)
      .executeTakeFirst();
    return Number(res.numUpdatedRows) > 0;
  }

  /** How many secrets each key id sealed. */
  async keyIds(): Promise<Map<string, number>> {
    const rows = await this.db
      .selectFrom("env_vars")
      .select(["key_id", (eb) => eb.fn.countAll<number>().as("n")])
      .where("secret", "=", 1)
      .groupBy("key_id")
      .execute();
    return new Map(rows.flatMap((r) => (r.key_id ? [[r.key_id, Number(r.n)] as const] : [])));
  }
}
