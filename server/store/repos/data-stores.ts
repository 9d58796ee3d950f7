/**
 * Users' data stores (the stores themselves; their records are in data-store-records.ts). Every
 * read is scoped to the owner. `lockOwn` is what serialises the writes that may add a key to a
 * store (the key limit is counted under it) on PostgreSQL; SQLite runs one write at a time.
 */
import { sql, type Selectable } from "kysely";
import type { Db, DialectName } from "../db.js";
import type { DataStoresTable } from "../tables/data-stores.js";
import { pageByCreation, type PageRequest, type PageRows } from "./paging.js";

export type DataStoreRow = Selectable<DataStoresTable>;

/** A store's size: its live keys and their keys' and values' characters. */
export interface StoreSize {
  keys: number;
  bytes: number;
}

export class DataStoresRepo {
  constructor(
    readonly db: Db,
    readonly dialect: DialectName,
  ) {}

  /** In a transaction; one already (a repo made `on` one): that one. */
  transaction<T>(fn: (trx: Db) => Promise<T>): Promise<T> {
    return this.db.isTransaction ? fn(this.db) : this.db.transaction().execute(fn);
  }

  /** The same repo over `db` (a transaction its writes join). */
  on(db: Db): DataStoresRepo {
    return new DataStoresRepo(db, this.dialect);
  }

  async create(row: DataStoreRow): Promise<void> {
    await this.db.insertInto("data_stores").values(row).execute();
  }

  async findOwn(userId: string, id: string, db: Db = this.db): Promise<DataStoreRow | undefined> {
    return db
      .selectFrom("data_stores")
      .selectAll()
      .where("id", "=", id)
      .where("user_id", "=", userId)
      .executeTakeFirst();
  }

  /** The store, its row held until the transaction ends (PostgreSQL): writes that add keys take turns. */
  async lockOwn(userId: string, id: string, trx: Db): Promise<DataStoreRow | undefined> {
    let q = trx.selectFrom("data_stores").selectAll().where("id", "=", id).where("user_id", "=", userId);
    if (this.dialect === "postgres") q = q.forUpdate();
    return q.executeTakeFirst();
  }

  page(userId: string, req: PageRequest): Promise<PageRows<DataStoreRow>> {
    return pageByCreation<DataStoreRow>(this.db, "data_stores", { user_id: userId }, req);
  }

  /** Every store of the user, newest first (the CLI finds a store by name among them). */
  async listOwn(userId: string): Promise<DataStoreRow[]> {
    return this.db
      .selectFrom("data_stores")
      .selectAll()
      .where("user_id", "=", userId)
      .orderBy("created_ms", "desc")
      .execute();
  }

  async rename(userId: string, id: string, name: string, updatedAt: number): Promise<boolean> {
    const res = await this.db
      .updateTable("data_stores")
      .set({ name, updated_at: updatedAt })
      .where("id", "=", id)
      .where("user_id", "=", userId)
      .executeTakeFirst();
    return Number(res.numUpdatedRows) > 0;
  }

  /** Marks the store changed (a record written through the API). */
  async touch(id: string, updatedAt: number, db: Db = this.db): Promise<void> {
    await db.updateTable("data_stores").set({ updated_at: updatedAt }).where("id", "=", id).execute();
  }

  /** The store and every record of it. */
  async delete(id: string, trx: Db): Promise<void> {
    await trx.deleteFrom("data_store_records").where("store_id", "=", id).execute();
    await trx.deleteFrom("data_stores").where("id", "=", id).execute();
  }

  /** Live keys and bytes of each store. */
  async sizes(ids: string[], nowMs: number): Promise<Map<string, StoreSize>> {
    if (ids.length === 0) return new Map();
    const rows = await this.db
      .selectFrom("data_store_records")
      .select((eb) => [
        "store_id",
        eb.fn.countAll<number>().as("keys"),
        eb.fn.sum<number>(sql`length(key) + length(value)`).as("bytes"),
      ])
      .where("store_id", "in", ids)
      .where((eb) => eb.or([eb("expires_at_ms", "is", null), eb("expires_at_ms", ">", nowMs)]))
      .groupBy("store_id")
      .execute();
    return new Map(rows.map((r) => [r.store_id, { keys: Number(r.keys), bytes: Number(r.bytes ?? 0) }]));
  }

  /**
   * What names the store among the user's sources' configured props and workflows' steps. Ids
   * are 20 random characters after `ds_`, so a quoted id in the JSON text is that store's.
   */
  async holders(
    userId: string,
    id: string,
    db: Db = this.db,
  ): Promise<Array<{ kind: string; id: string; name: string }>> {
    const needle = `%"${id}"%`;
    const sources = await db
      .selectFrom("sources")
      .select(["id", "name"])
      .where("user_id", "=", userId)
      .where("configured_props", "like", needle)
      .execute();
    const workflows = await db
      .selectFrom("workflows")
      .select(["id", "name"])
      .where("owner_id", "=", userId)
      .where("steps_json", "like", needle)
      .execute();
    return [
      ...sources.map((s) => ({ kind: "source", id: s.id, name: s.name })),
      ...workflows.map((w) => ({ kind: "workflow", id: w.id, name: w.name })),
    ];
  }
}
