/** Sources (deployed components). Every read and write is scoped to the owner. */
import type { Selectable } from "kysely";
import type { Db } from "../db.js";
import type { SourcesTable } from "../tables/core.js";
import { pageByCreation, type PageRequest, type PageRows } from "./paging.js";

export type SourceRow = Selectable<SourcesTable>;

export class SourcesRepo {
  constructor(private readonly db: Db) {}

  /** Runs `fn` in one transaction (a source and the component it is made from, together). */
  transaction<T>(fn: (db: Db) => Promise<T>): Promise<T> {
    return this.db.transaction().execute(fn);
  }

  async insert(row: SourceRow, db: Db = this.db): Promise<void> {
    await db.insertInto("sources").values(row).execute();
  }

  /** Overwrites every column of the row with the same id and owner. */
  async replace(row: SourceRow, db: Db = this.db): Promise<void> {
    const { id, user_id, ...rest } = row;
    await db.updateTable("sources").set(rest).where("id", "=", id).where("user_id", "=", user_id).execute();
  }

  async delete(userId: string, id: string, db: Db = this.db): Promise<void> {
    await db.deleteFrom("sources").where("id", "=", id).where("user_id", "=", userId).execute();
  }

  async findOwn(userId: string, id: string): Promise<SourceRow | undefined> {
    return this.db
      .selectFrom("sources")
      .selectAll()
      .where("id", "=", id)
      .where("user_id", "=", userId)
      .executeTakeFirst();
  }

  /** Any source by id, for the runtime and event delivery (which act for the owner). */
  async findById(id: string): Promise<SourceRow | undefined> {
    return this.db.selectFrom("sources").selectAll().where("id", "=", id).executeTakeFirst();
  }

  /** The owner's slugs equal to `base` or starting with `base-`, for picking a free one. */
  async slugsLike(userId: string, base: string): Promise<string[]> {
    const rows = await this.db
      .selectFrom("sources")
      .select("name_slug")
      .where("user_id", "=", userId)
      .where((eb) => eb.or([eb("name_slug", "=", base), eb("name_slug", "like", `${base}-%`)]))
      .execute();
    return rows.map((r) => r.name_slug);
  }

  async listOwn(userId: string, page: PageRequest): Promise<PageRows<SourceRow>> {
    return pageByCreation<SourceRow>(this.db, "sources", { user_id: userId }, page);
  }

  /** Every active source, for the runtime to re-arm triggers at start. */
  async listActive(): Promise<SourceRow[]> {
    return this.db.selectFrom("sources").selectAll().where("active", "=", 1).orderBy("created_ms").execute();
  }
}
