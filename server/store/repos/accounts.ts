/**
 * Connected accounts and who references them. Every read and write a user's request makes is
 * scoped to the owner; the runtime's read (`sealedFor`) is scoped to the source's owner, which
 * is the only user whose accounts a source may reference.
 */
import type { Selectable } from "kysely";
import type { Db } from "../db.js";
import type { AccountsTable, AccountUsesTable } from "../tables/accounts.js";
import { pageByCreation, type PageRequest, type PageRows } from "./paging.js";

export type AccountRow = Selectable<AccountsTable>;
export type AccountUseRow = Selectable<AccountUsesTable>;

export class AccountsRepo {
  constructor(private readonly db: Db) {}

  transaction<T>(fn: (db: Db) => Promise<T>): Promise<T> {
    return this.db.transaction().execute(fn);
  }

  async insert(row: AccountRow, db: Db = this.db): Promise<void> {
    await db.insertInto("accounts").values(row).execute();
  }

  async update(
    userId: string,
    id: string,
    patch: Partial<Pick<AccountRow, "name" | "fields" | "sealed" | "key_id" | "updated_at">>,
    db: Db = this.db,
  ): Promise<void> {
    await db.updateTable("accounts").set(patch).where("id", "=", id).where("user_id", "=", userId).execute();
  }

  /** Re-seals one row only if it still holds `sealedBefore` (a rotation racing an update loses). */
  async reseal(id: string, sealedBefore: string, sealed: string, keyId: string, db: Db = this.db): Promise<boolean> {
    const res = await db
      .updateTable("accounts")
      .set({ sealed, key_id: keyId })
      .where("id", "=", id)
      .where("sealed", "=", sealedBefore)
      .executeTakeFirst();
    return Number(res.numUpdatedRows) > 0;
  }

  async delete(userId: string, id: string, db: Db = this.db): Promise<void> {
    await db.deleteFrom("accounts").where("id", "=", id).where("user_id", "=", userId).execute();
  }

  async findOwn(userId: string, id: string, db: Db = this.db): Promise<AccountRow | undefined> {
    return db.selectFrom("accounts").selectAll().where("id", "=", id).where("user_id", "=", userId).executeTakeFirst();
  }

  async findOwnMany(userId: string, ids: string[], db: Db = this.db): Promise<AccountRow[]> {
    if (ids.length === 0) return [];
    return db.selectFrom("accounts").selectAll().where("user_id", "=", userId).where("id", "in", ids).execute();
  }

  /** The account made from a source's inline `$auth` for one prop. */
  async findByOrigin(userId: string, origin: string, db: Db = this.db): Promise<AccountRow | undefined> {
    return db.selectFrom("accounts").selectAll().where("user_id", "=", userId).where("origin", "=", origin).executeTakeFirst();
  }

  async listOwn(userId: string, page: PageRequest, app?: string): Promise<PageRows<AccountRow>> {
    return pageByCreation<AccountRow>(this.db, "accounts", app ? { user_id: userId, app } : { user_id: userId }, page);
  }

  async countOwn(userId: string, app: string): Promise<number> {
    const row = await this.db
      .selectFrom("accounts")
      .select((eb) => eb.fn.countAll<number>().as("n"))
      .where("user_id", "=", userId)
      .where("app", "=", app)
      .executeTakeFirst();
    return Number(row?.n ?? 0);
  }

  /** How many (holder, prop) pairs reference each of `ids`. */
  async useCounts(ids: string[], db: Db = this.db): Promise<Map<string, number>> {
    const counts = new Map<string, number>();
    if (ids.length === 0) return counts;
    const rows = await db
      .selectFrom("account_uses")
      .select(["account_id", (eb) => eb.fn.countAll<number>().as("n")])
      .where("account_id", "in", ids)
      .groupBy("account_id")
      .execute();
    for (const r of rows) counts.set(r.account_id, Number(r.n));
    return counts;
  }

  async usesOf(accountId: string, db: Db = this.db): Promise<AccountUseRow[]> {
    return db.selectFrom("account_uses").selectAll().where("account_id", "=", accountId).orderBy("holder_id").orderBy("prop").execute();
  }

  async usesOfHolder(holderId: string, db: Db = this.db): Promise<AccountUseRow[]> {
    return db.selectFrom("account_uses").selectAll().where("holder_id", "=", holderId).execute();
  }

  /** The accounts made from `holderId`'s inline values. */
  async inlineOf(userId: string, holderId: string, db: Db = this.db): Promise<AccountRow[]> {
    return db
      .selectFrom("accounts")
      .selectAll()
      .where("user_id", "=", userId)
      .where("origin", ">=", `${holderId}.`)
      .where("origin", "<", `${holderId}/`)
      .execute();
  }

  /** Replaces what `holderId` references. */
  async setUses(userId: string, holderId: string, uses: Array<{ accountId: string; prop: string }>, db: Db = this.db): Promise<void> {
    await db.deleteFrom("account_uses").where("holder_id", "=", holderId).execute();
    if (uses.length === 0) return;
    await db
      .insertInto("account_uses")
      .values(uses.map((u) => ({ account_id: u.accountId, user_id: userId, holder_id: holderId, prop: u.prop })))
      .execute();
  }

  /** A holder is gone: its references go, and so do the accounts made from its inline values that nothing else uses. */
  async holderDeleted(userId: string, holderId: string, db: Db = this.db): Promise<void> {
    await db.deleteFrom("account_uses").where("holder_id", "=", holderId).execute();
    await this.dropUnusedInline(userId, holderId, db);
  }

  /** Removes the accounts made from `holderId`'s inline values that nothing references. */
  async dropUnusedInline(userId: string, holderId: string, db: Db = this.db): Promise<void> {
    // origin is `<holder id>.<prop>`: a range, since `_` in an id would be a LIKE wildcard.
    await db
      .deleteFrom("accounts")
      .where("user_id", "=", userId)
      .where("origin", ">=", `${holderId}.`)
      .where("origin", "<", `${holderId}/`)
      .where((eb) =>
        eb.not(eb.exists(eb.selectFrom("account_uses").select("account_uses.account_id").whereRef("account_uses.account_id", "=", "accounts.id"))),
      )
      .execute();
  }

  /** What the holder ids are (source or workflow) and their names, for messages. */
  async holderNames(ids: string[], db: Db = this.db): Promise<Map<string, { kind: string; name: string }>> {
    const out = new Map<string, { kind: string; name: string }>();
    if (ids.length === 0) return out;
    for (const s of await db.selectFrom("sources").select(["id", "name"]).where("id", "in", ids).execute())
      out.set(s.id, { kind: "source", name: s.name });
    for (const w of await db.selectFrom("workflows").select(["id", "name"]).where("id", "in", ids).execute())
      out.set(w.id, { kind: "workflow", name: w.name });
    return out;
  }

  /** The sealed values of a user's accounts, for a run. */
  async sealedFor(userId: string, ids: string[]): Promise<Array<Pick<AccountRow, "id" | "user_id" | "sealed">>> {
    if (ids.length === 0) return [];
    return this.db.selectFrom("accounts").select(["id", "user_id", "sealed"]).where("user_id", "=", userId).where("id", "in", ids).execute();
  }

  /** Accounts sealed with a key other than `keyId`, a page at a time (rotation). */
  async sealedNotWith(keyId: string, afterId: string, limit: number): Promise<Array<Pick<AccountRow, "id" | "user_id" | "sealed" | "key_id">>> {
    return this.db
      .selectFrom("accounts")
      .select(["id", "user_id", "sealed", "key_id"])
      .where("key_id", "!=", keyId)
      .where("id", ">", afterId)
      .orderBy("id")
      .limit(limit)
      .execute();
  }

  /** How many accounts each key id sealed. */
  async keyIds(): Promise<Map<string, number>> {
    const rows = await this.db
      .selectFrom("accounts")
      .select(["key_id", (eb) => eb.fn.countAll<number>().as("n")])
      .groupBy("key_id")
      .execute();
    return new Map(rows.map((r) => [r.key_id, Number(r.n)]));
  }
}
