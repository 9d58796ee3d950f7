/** Users and their API keys (stored only as hashes). */
import { randomUUID } from "node:crypto";
import { sql, type Selectable } from "kysely";
import type { Db, DialectName } from "../db.js";
import type { UsersTable } from "../tables/core.js";
import { nextCreatedMs, nowSeconds } from "./clock.js";
import { notifyUserChangedIn } from "./cluster.js";
import { pageByCreation, type PageRequest, type PageRows } from "./paging.js";
import { prepared } from "../prepared.js";
import { stateRemovedElsewhere } from "./source-state.js";

/**
 * The system user: owns the built-in components (and a deleted user's components that other
 * users' sources still run); holds a random key nobody knows. Internal: admins neither list,
 * read, change nor delete it.
 */
export const SYSTEM_USERNAME = "headwater";

export type UserRow = Selectable<UsersTable>;

export interface NewUser {
  id: string;
  username: string;
  email: string;
  admin: boolean;
  keyHash: string;
}

/** What an admin may change on a user (`PATCH /users/{id}`); absent fields are left alone. */
export interface UserAdminPatch {
  admin?: boolean | undefined;
  disabled?: boolean | undefined;
  /** NULL: back to the server's default. */
  dailyInvocationsQuota?: number | null | undefined;
  dailyComputeMsQuota?: number | null | undefined;
}

/** The change would leave no enabled admin (409 `last_admin`). */
export class LastAdminError extends Error {
  constructor() {
    super("the last admin cannot be demoted, disabled or deleted");
    this.name = "LastAdminError";
  }
}

// Read before every workflow run (runner.ts): built once.
const disabledById = prepared((db, $: { id: string }) =>
  db.selectFrom("users").select("disabled").where("id", "=", $.id),
);

/** Whether a user is disabled (their targets do not run); false for an unknown user. */
export async function isUserDisabled(db: Db, userId: string): Promise<boolean> {
  const row = await disabledById.first(db, { id: userId });
  return Number(row?.disabled ?? 0) === 1;
}

// Every API request's caller (hot path: built once).
const userByKeyHash = prepared((db, $: { keyHash: string }) =>
  db
    .selectFrom("api_keys")
    .innerJoin("users", "users.id", "api_keys.user_id")
    .selectAll("users")
    .select("api_keys.key_hash")
    .where("api_keys.key_hash", "=", $.keyHash),
);

export class UsersRepo {
  constructor(
    private readonly db: Db,
    /** Row locks (FOR UPDATE) exist on PostgreSQL only; SQLite writes one transaction at a time. */
    private readonly dialect: DialectName = "sqlite",
  ) {}

  async findByKeyHash(keyHash: string): Promise<(UserRow & { key_hash: string }) | undefined> {
    return userByKeyHash.first(this.db, { keyHash });
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
      disabled: 0,
      daily_invocations_quota: null,
      daily_compute_ms_quota: null,
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

  /**
   * Applies an admin's change in one transaction, refusing (LastAdminError) one that leaves no
   * enabled admin. On PostgreSQL the enabled admins' rows are locked first, so two admins
   * demoting each other at once cannot both succeed; SQLite runs one write transaction at a time.
   * Undefined when there is no such user. `changeId` names the change in its notification to
   * the other instances (cluster/user-changes.ts).
   */
  async updateAdminFields(id: string, patch: UserAdminPatch, changeId: string = randomUUID()): Promise<UserRow | undefined> {
    return this.db.transaction().execute(async (trx) => {
      const admins = await lockedEnabledAdmins(trx, this.dialect);
      const row = await trx.selectFrom("users").selectAll().where("id", "=", id).executeTakeFirst();
      if (!row) return undefined;
      const set: Partial<UserRow> = { updated_at: nowSeconds() };
      if (patch.admin !== undefined) set.admin = patch.admin ? 1 : 0;
      if (patch.disabled !== undefined) set.disabled = patch.disabled ? 1 : 0;
      if (patch.dailyInvocationsQuota !== undefined) set.daily_invocations_quota = patch.dailyInvocationsQuota;
      if (patch.dailyComputeMsQuota !== undefined) set.daily_compute_ms_quota = patch.dailyComputeMsQuota;
      const after = { ...row, ...set };
      const wasEnabledAdmin = row.admin === 1 && Number(row.disabled) === 0;
      const isEnabledAdmin = after.admin === 1 && Number(after.disabled) === 0;
      if (wasEnabledAdmin && !isEnabledAdmin && admins.filter((a) => a !== id).length === 0) throw new LastAdminError();
      await trx.updateTable("users").set(set).where("id", "=", id).execute();
      if (this.dialect === "postgres") await notifyUserChangedIn(trx, id, changeId);
      return after;
    });
  }

  /**
   * Deletes the user and everything they own, in one transaction: keys, components (those other
   * users' sources still run go to `heirId`, the system user, so those sources keep working),
   * registry keys, sources, workflows, their events, subscriptions, state, timers, queued jobs,
   * quota counters and connected accounts. Refuses (LastAdminError) to delete the last enabled admin. False when
   * there is no such user. The ids of the deleted sources and workflows are returned, so the
   * caller can drop what it remembers of them.
   */
  async deleteWithEverything(id: string, heirId: string, changeId: string = randomUUID()): Promise<{ targets: string[] } | undefined> {
    // A run of theirs appending events at the same moment may deadlock with us (PostgreSQL picks
    // one to abort): the deletion is tried again, it changed nothing when it was aborted.
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.deleteOnce(id, heirId, changeId);
      } catch (err) {
        if (attempt >= 5 || !isDeadlock(err)) throw err;
        await new Promise((r) => setTimeout(r, 20 * attempt));
      }
    }
  }

  private async deleteOnce(id: string, heirId: string, changeId: string): Promise<{ targets: string[] } | undefined> {
    return this.db.transaction().execute(async (trx) => {
      const admins = await lockedEnabledAdmins(trx, this.dialect);
      const row = await trx.selectFrom("users").selectAll().where("id", "=", id).executeTakeFirst();
      if (!row) return undefined;
      if (row.admin === 1 && Number(row.disabled) === 0 && admins.filter((a) => a !== id).length === 0) {
        throw new LastAdminError();
      }
      const sourceIds = (await trx.selectFrom("sources").select("id").where("user_id", "=", id).execute()).map((r) => r.id);
      const workflowIds = (await trx.selectFrom("workflows").select("id").where("owner_id", "=", id).execute()).map(
        (r) => r.id,
      );
      const targets = [...sourceIds, ...workflowIds];
      // Sources and workflows first (their timers, jobs, state and events), then the rest.
      for (const chunk of chunks(targets, 500)) {
        await trx.deleteFrom("timers").where("source_id", "in", chunk).execute();
        await trx.deleteFrom("job_targets").where("target_id", "in", chunk).execute();
        await trx.deleteFrom("jobs").where("target_id", "in", chunk).execute();
        // Appends lock their emitter's row before they write events: take those locks first too.
        if (this.dialect === "postgres") {
          await trx.selectFrom("event_emitters").select("emitter_id").where("emitter_id", "in", chunk).orderBy("emitter_id").forUpdate().execute();
        }
        await trx.deleteFrom("source_state").where("source_id", "in", chunk).execute();
        stateRemovedElsewhere(chunk);
        await trx.deleteFrom("source_dedupe").where("source_id", "in", chunk).execute();
        await trx.deleteFrom("events").where("emitter_id", "in", chunk).execute();
        await trx.deleteFrom("event_channels").where("emitter_id", "in", chunk).execute();
        await trx.deleteFrom("event_emitters").where("emitter_id", "in", chunk).execute();
        await trx.deleteFrom("delivery_outbox").where("emitter_id", "in", chunk).execute();
        await trx.deleteFrom("event_stats").where("emitter_id", "in", chunk).execute();
        await trx
          .deleteFrom("subscriptions")
          .where((eb) => eb.or([eb("emitter_id", "in", chunk), eb("listener_id", "in", chunk)]))
          .execute();
        await trx.deleteFrom("auto_subscriptions").where("listener_id", "in", chunk).execute();
      }
      await trx.deleteFrom("timers").where("owner_id", "=", id).execute();
      await trx.deleteFrom("jobs").where("owner_id", "=", id).execute();
      await trx.deleteFrom("events").where("owner_id", "=", id).execute();
      await trx.deleteFrom("delivery_outbox").where("owner_id", "=", id).execute();
      await trx.deleteFrom("subscriptions").where("owner_id", "=", id).execute();
      await trx.deleteFrom("auto_subscriptions").where("owner_id", "=", id).execute();
      await trx.deleteFrom("quota_usage").where("user_id", "=", id).execute();
      await trx.deleteFrom("account_uses").where("user_id", "=", id).execute();
      await trx.deleteFrom("accounts").where("user_id", "=", id).execute();
      await trx.deleteFrom("env_vars").where("user_id", "=", id).execute();
      // Their data stores' records, then the stores.
      await trx
        .deleteFrom("data_store_records")
        .where("store_id", "in", trx.selectFrom("data_stores").select("id").where("user_id", "=", id))
        .execute();
      await trx.deleteFrom("data_stores").where("user_id", "=", id).execute();
      await trx.deleteFrom("workflows").where("owner_id", "=", id).execute();
      await trx.deleteFrom("sources").where("user_id", "=", id).execute();
      // A published component that another user's source runs outlives its author: the system
      // user keeps it (unpublished, so its key is free), and those sources go on running.
      await trx
        .updateTable("components")
        .set({ user_id: heirId, published: 0 })
        .where("user_id", "=", id)
        .where(({ exists, selectFrom }) =>
          exists(selectFrom("sources").select(sql`1`.as("one")).whereRef("sources.component_id", "=", "components.id")),
        )
        .execute();
      await trx.deleteFrom("components").where("user_id", "=", id).execute();
      await trx.deleteFrom("registry_keys").where("user_id", "=", id).execute();
      await trx.deleteFrom("api_keys").where("user_id", "=", id).execute();
      await trx.deleteFrom("users").where("id", "=", id).execute();
      if (this.dialect === "postgres") await notifyUserChangedIn(trx, id, changeId);
      return { targets };
    });
  }

  /** Every user but the system user, which is internal (it holds the built-in components). */
  async list(page: PageRequest): Promise<PageRows<UserRow>> {
    return pageByCreation<UserRow>(this.db, "users", { username: { not: SYSTEM_USERNAME } }, page);
  }
}

/** The ids of the enabled admins, their rows locked until the transaction ends (PostgreSQL). */
async function lockedEnabledAdmins(trx: Db, dialect: DialectName): Promise<string[]> {
  const query = trx.selectFrom("users").select("id").where("admin", "=", 1).where("disabled", "=", 0).orderBy("id");
  const rows = await (dialect === "postgres" ? query.forUpdate() : query).execute();
  return rows.map((r) => r.id);
}

function isDeadlock(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  return code === "40P01" || code === "40001";
}

function chunks<T>(items: T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}
