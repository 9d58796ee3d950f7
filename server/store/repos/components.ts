/**
 * Saved components and the global ownership of component keys. Every read is scoped to its
 * owner, except the registry (published components, visible to all).
 */
import type { Insertable, Selectable } from "kysely";
import type { Db } from "../db.js";
import type { ComponentsTable } from "../tables/core.js";
import { isUniqueViolation } from "./errors.js";
import { pageByCreation, type PageRequest, type PageRows } from "./paging.js";

export type ComponentRow = Selectable<ComponentsTable>;
export type NewComponentRow = Insertable<ComponentsTable>;

/** The key is held by another user (keys are global). */
export class KeyTakenError extends Error {
  constructor(readonly key: string) {
    super(`component key ${key} belongs to another user`);
  }
}

export class ComponentsRepo {
  constructor(private readonly db: Db) {}

  /**
   * Inserts a component, claiming its key for the owner when it has one. Pass a transaction
   * as `db` to make it part of a larger write (a source created from code).
   */
  async insert(row: NewComponentRow, db?: Db): Promise<void> {
    // The key claim and the row go together: alone, run them in a transaction of their own.
    if (!db) return this.db.transaction().execute((trx) => this.insert(row, trx));
    if (row.key) {
      const holder = await db
        .selectFrom("component_keys")
        .select("user_id")
        .where("key", "=", row.key)
        .executeTakeFirst();
      if (holder && holder.user_id !== row.user_id) throw new KeyTakenError(row.key);
      if (!holder) {
        try {
          await db
            .insertInto("component_keys")
            .values({ key: row.key, user_id: row.user_id, created_at: row.created_at })
            .execute();
        } catch (err) {
          // Another user claimed it between our read and this write.
          if (isUniqueViolation(err)) throw new KeyTakenError(row.key);
          throw err;
        }
      }
    }
    await db.insertInto("components").values(row).execute();
  }

  /**
   * Deletes a component no source uses, releasing its key when the owner has no other
   * component with it (so an undone request leaves no trace).
   */
  async deleteUnused(id: string, userId: string, db: Db = this.db): Promise<void> {
    const row = await db
      .selectFrom("components")
      .select("key")
      .where("id", "=", id)
      .where("user_id", "=", userId)
      .executeTakeFirst();
    if (!row) return;
    await db.deleteFrom("components").where("id", "=", id).execute();
    if (row.key) {
      const other = await db
        .selectFrom("components")
        .select("id")
        .where("key", "=", row.key)
        .where("user_id", "=", userId)
        .executeTakeFirst();
      if (!other)
        await db
          .deleteFrom("component_keys")
          .where("key", "=", row.key)
          .where("user_id", "=", userId)
          .execute();
    }
  }

  /** Who holds `key`, if anyone. */
  async keyHolder(key: string): Promise<string | undefined> {
    const r = await this.db
      .selectFrom("component_keys")
      .select("user_id")
      .where("key", "=", key)
      .executeTakeFirst();
    return r?.user_id;
  }

  async findOwnById(userId: string, id: string): Promise<ComponentRow | undefined> {
    return this.db
      .selectFrom("components")
      .selectAll()
      .where("id", "=", id)
      .where("user_id", "=", userId)
      .executeTakeFirst();
  }

  /** Any component by id, for the runtime (which loads the code of a source it runs). */
  async findById(id: string): Promise<ComponentRow | undefined> {
    return this.db.selectFrom("components").selectAll().where("id", "=", id).executeTakeFirst();
  }

  /** The owner's newest component with this key. */
  async findOwnByKey(userId: string, key: string): Promise<ComponentRow | undefined> {
    return this.db
      .selectFrom("components")
      .selectAll()
      .where("key", "=", key)
      .where("user_id", "=", userId)
      .orderBy("created_ms", "desc")
      .orderBy("id", "desc")
      .executeTakeFirst();
  }

  /** The newest published component with this key, whoever owns it. */
  async findPublishedByKey(key: string): Promise<ComponentRow | undefined> {
    return this.db
      .selectFrom("components")
      .selectAll()
      .where("key", "=", key)
      .where("published", "=", 1)
      .orderBy("created_ms", "desc")
      .orderBy("id", "desc")
      .executeTakeFirst();
  }

  /** The owner's component with this code, if saved before (built-ins are saved once). */
  async findOwnByHash(userId: string, codeHash: string): Promise<ComponentRow | undefined> {
    return this.db
      .selectFrom("components")
      .selectAll()
      .where("user_id", "=", userId)
      .where("code_hash", "=", codeHash)
      .executeTakeFirst();
  }

  async publish(id: string, nowSeconds: number): Promise<void> {
    await this.db
      .updateTable("components")
      .set({ published: 1, updated_at: nowSeconds })
      .where("id", "=", id)
      .execute();
  }

  async listOwn(userId: string, page: PageRequest): Promise<PageRows<ComponentRow>> {
    return pageByCreation<ComponentRow>(this.db, "components", { user_id: userId }, page);
  }
}
