/** Users and their API keys (stored only as hashes). */
import type { Selectable } from "kysely";
import type { Db } from "../db.js";
import type { UsersTable } from "../tables/core.js";
import { nextCreatedMs, nowSeconds } from "./clock.js";
import { pageByCreation, type PageRequest, type PageRows } from "./paging.js";

export type UserRow = Selectable<UsersTable>;

export interface NewUser {
  id: string;
  username: string;
  email: string;
  admin: boolean;
  keyHash: string;
}

export class UsersRepo {
  constructor(private readonly db: Db) {}

  async findByKeyHash(keyHash: string): Promise<(UserRow & { key_hash: string }) | undefined> {
    return this.db
      .selectFrom("api_keys")
      .innerJoin("users", "users.id", "api_keys.user_id")
      .selectAll("users")
      .select("api_keys.key_hash")
      .where("api_keys.key_hash", "=", keyHash)
      .executeTakeFirst();
  }

  async findById(id: string): Promise<UserRow | undefined> {
    return this.db.selectFrom("users").selectAll().where("id", "=", id).executeTakeFirst();
  }

  async findByUsername(username: string): Promise<UserRow | undefined> {
    return this.db.selectFrom("users").selectAll().where("username", "=", username).executeTakeFirst();
  }

  /** Creates the user and its key in one transaction. */
  async create(u: NewUser): Promise<UserRow> {
    const now = nowSeconds();
    const row: UserRow = {
      id: u.id,
      username: u.username,
      email: u.email,
      admin: u.admin ? 1 : 0,
      created_ms: nextCreatedMs(),
      created_at: now,
      updated_at: now,
    };
    await this.db.transaction().execute(async (trx) => {
      await trx.insertInto("users").values(row).execute();
      await trx
        .insertInto("api_keys")
        .values({ key_hash: u.keyHash, user_id: u.id, created_at: now })
        .execute();
    });
    return row;
  }

  async addKey(userId: string, keyHash: string): Promise<void> {
    await this.db
      .insertInto("api_keys")
      .values({ key_hash: keyHash, user_id: userId, created_at: nowSeconds() })
      .execute();
  }

  async setAdmin(userId: string): Promise<void> {
    await this.db
      .updateTable("users")
      .set({ admin: 1, updated_at: nowSeconds() })
      .where("id", "=", userId)
      .execute();
  }

  /** Replaces every key of the user with the new one, atomically: the old key stops working. */
  async replaceKeys(userId: string, keyHash: string): Promise<void> {
    await this.db.transaction().execute(async (trx) => {
      await trx.deleteFrom("api_keys").where("user_id", "=", userId).execute();
      await trx
        .insertInto("api_keys")
        .values({ key_hash: keyHash, user_id: userId, created_at: nowSeconds() })
        .execute();
    });
  }

  async list(page: PageRequest): Promise<PageRows<UserRow>> {
    return pageByCreation<UserRow>(this.db, "users", {}, page);
  }
}
