/**
 * Saved components and the registry's keys. Every read is scoped to its owner, except the
 * registry (published components, visible to all). A key names a component within one account
 * (any number of users may save the same key); only the registry is one namespace, held in
 * `registry_keys` by the user who published the key first. Built-in and vendor components are
 * published by the system user: they block no user's key within an account, but their keys are
 * not free in the registry (publishing one is a KeyTakenError, see claimRegistryKey).
 */
import type { Insertable, Selectable } from "kysely";
import type { Db } from "../db.js";
import type { ComponentsTable } from "../tables/core.js";
import { isUniqueViolation } from "./errors.js";
import { pageByCreation, type PageRequest, type PageRows } from "./paging.js";

export type ComponentRow = Selectable<ComponentsTable>;
export type NewComponentRow = Insertable<ComponentsTable>;

/** A registry component without its code (GET /components/search). */
export interface PublishedSummary {
  id: string;
  key: string;
  name: string;
  description: string | null;
  version: string;
  meta: string;
  component_url: string | null;
}

/** The key is published to the registry by another user. */
export class KeyTakenError extends Error {
  constructor(readonly key: string) {
    super(`component key ${key} is published to the registry by another user`);
  }
}

export class ComponentsRepo {
  constructor(private readonly db: Db) {}

  /**
   * Inserts a component. Keys are per account, so this conflicts with nobody; rows saved as
   * published here are the system's (built-ins, vendor components), which need no registry_keys row.
   * Pass a transaction as `db` to make it part of a larger write (a source created from code).
   */
  async insert(row: NewComponentRow, db: Db = this.db): Promise<void> {
    await db.insertInto("components").values(row).execute();
  }

  /** Makes `userId` the registry holder of `key`, unless another user already is. */
  private async claimRegistryKey(db: Db, key: string, userId: string, now: number): Promise<void> {
    const holder = await db
      .selectFrom("registry_keys")
      .select("user_id")
      .where("key", "=", key)
      .executeTakeFirst();
    if (holder) {
      if (holder.user_id !== userId) throw new KeyTakenError(key);
      return;
    }
    // The system's components (built-ins, vendor components already found) answer every user's
    // registry lookups of their keys: a user publishing one of them would replace what other
    // users' sources get, so those keys are taken. Saving such a key in an account stays free.
    const system = await db
      .selectFrom("components")
      .select("id")
      .where("key", "=", key)
      .where("published", "=", 1)
      .where("user_id", "!=", userId)
      .executeTakeFirst();
    if (system) throw new KeyTakenError(key);
    try {
      await db.insertInto("registry_keys").values({ key, user_id: userId, created_at: now }).execute();
    } catch (err) {
      // Another user published it between our read and this write.
      if (isUniqueViolation(err)) throw new KeyTakenError(key);
      throw err;
    }
  }

  /** Deletes a component no source uses (so an undone request leaves no trace). */
  async deleteUnused(id: string, userId: string, db: Db = this.db): Promise<void> {
    await db.deleteFrom("components").where("id", "=", id).where("user_id", "=", userId).execute();
  }

  /** Who published `key` to the registry, if anyone. */
  async registryHolder(key: string): Promise<string | undefined> {
    const r = await this.db
      .selectFrom("registry_keys")
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

  /**
   * The registry's component for this key: the newest published by the user holding the key,
   * else (no user published it) the system's newest: a built-in or a vendor component.
   */
  async findPublishedByKey(key: string): Promise<ComponentRow | undefined> {
    const holder = await this.registryHolder(key);
    let q = this.db.selectFrom("components").selectAll().where("key", "=", key).where("published", "=", 1);
    if (holder) q = q.where("user_id", "=", holder);
    return q.orderBy("created_ms", "desc").orderBy("id", "desc").executeTakeFirst();
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

  /**
   * Publishes the owner's component: claims its key in the registry (KeyTakenError when another
   * user published it) and marks it published, together.
   */
  async publish(row: { id: string; user_id: string; key: string }, nowSeconds: number): Promise<void> {
    await this.db.transaction().execute(async (trx) => {
      await this.claimRegistryKey(trx, row.key, row.user_id, nowSeconds);
      await trx
        .updateTable("components")
        .set({ published: 1, updated_at: nowSeconds })
        .where("id", "=", row.id)
        .where("user_id", "=", row.user_id)
        .execute();
    });
  }

  /**
   * The owner's components described as actions (their meta says `"type":"action"`), newest
   * first, at most `limit` (GET /actions lists them before the vendor's).
   */
  async listOwnActions(userId: string, limit = 500): Promise<ComponentRow[]> {
    return this.db
      .selectFrom("components")
      .selectAll()
      .where("user_id", "=", userId)
      .where("meta", "like", '%"type":"action"%')
      .orderBy("created_ms", "desc")
      .orderBy("id", "desc")
      .limit(limit)
      .execute();
  }

  /**
   * The registry's components as a search sees them (no code): one per key, the registry
   * holder's newest else the system's newest (as findPublishedByKey picks), at most `limit`.
   */
  async listPublishedSummaries(limit = 5000): Promise<PublishedSummary[]> {
    const rows = await this.db
      .selectFrom("components as c")
      .leftJoin("registry_keys as r", "r.key", "c.key")
      .select(["c.id", "c.user_id", "c.key", "c.name", "c.description", "c.version", "c.meta", "c.component_url", "r.user_id as holder"])
      .where("c.published", "=", 1)
      .where("c.key", "is not", null)
      .orderBy("c.created_ms", "desc")
      .orderBy("c.id", "desc")
      .limit(limit)
      .execute();
    const seen = new Set<string>();
    const out: PublishedSummary[] = [];
    for (const r of rows) {
      if (!r.key || seen.has(r.key) || (r.holder && r.holder !== r.user_id)) continue;
      seen.add(r.key);
      out.push({ id: r.id, key: r.key, name: r.name, description: r.description, version: r.version, meta: r.meta, component_url: r.component_url });
    }
    return out;
  }

  async listOwn(userId: string, page: PageRequest): Promise<PageRows<ComponentRow>> {
    return pageByCreation<ComponentRow>(this.db, "components", { user_id: userId }, page);
  }
}
