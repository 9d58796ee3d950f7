/**
 * What several server instances on one PostgreSQL database coordinate through, besides the rows
 * themselves: a start-up lock (so two instances starting at once do not both seed the same
 * rows) and the notification channel that carries HTTP custom responses back to the instance
 * holding the request. On SQLite a server is alone on its database: the lock is a no-op.
 */
import { sql } from "kysely";
import type { Db, DialectName } from "../db.js";

/** Arbitrary, fixed: the advisory-lock key of start-up seeding (distinct from the legacy outbox drain's, deliveries.ts). */
const STARTUP_LOCK_KEY = 7433002;

/**
 * Runs `fn` while holding a session advisory lock on one pooled connection: instances starting
 * together run their seeding one after the other, and each sees what the previous one wrote.
 * `fn` runs its own queries on other connections of the pool.
 */
export async function withStartupLock<T>(db: Db, dialect: DialectName, fn: () => Promise<T>): Promise<T> {
  if (dialect !== "postgres") return fn();
  return db.connection().execute(async (conn) => {
    await sql`select pg_advisory_lock(${STARTUP_LOCK_KEY})`.execute(conn);
    try {
      return await fn();
    } finally {
      await sql`select pg_advisory_unlock(${STARTUP_LOCK_KEY})`.execute(conn);
    }
  });
}

// -- HTTP responses across instances ------------------------------------------------------------

/** Minimal pg surfaces, so this file needs no pg import. */
interface PgQueryable {
  query(text: string, values?: unknown[]): Promise<unknown>;
}

export const RESPONSES_NOTIFY_CHANNEL = "headwater_http_responses";

export async function listenForResponses(client: PgQueryable): Promise<void> {
  await client.query(`LISTEN ${RESPONSES_NOTIFY_CHANNEL}`);
}

/**
 * Sends the parts of one message in one transaction: PostgreSQL delivers a transaction's
 * notifications together and in order, so the receiver can join the parts.
 */
export async function notifyResponseParts(client: PgQueryable, parts: string[]): Promise<void> {
  await client.query("begin");
  try {
    for (const p of parts) await client.query("select pg_notify($1, $2)", [RESPONSES_NOTIFY_CHANNEL, p]);
    await client.query("commit");
  } catch (err) {
    await client.query("rollback").catch(() => undefined);
    throw err;
  }
}

// -- Users changed by an admin ------------------------------------------------------------------

/**
 * An admin disabled, changed or deleted a user: every instance forgets what it remembers of
 * them (endpoint targets, quota limits). Sent inside the transaction that makes the change, so
 * it is delivered exactly when the change commits. Payload: the user id, a space and the
 * change's id (cluster/user-changes.ts), which each instance acknowledges on
 * USER_CHANGES_ACK_CHANNEL once it has forgotten the user.
 */
export const USER_CHANGES_NOTIFY_CHANNEL = "headwater_user_changes";
/** Payload: the change's id, a space and the acknowledging instance's id. */
export const USER_CHANGES_ACK_CHANNEL = "headwater_user_changes_ack";

export async function listenForUserChanges(client: PgQueryable): Promise<void> {
  await client.query(`LISTEN ${USER_CHANGES_NOTIFY_CHANNEL}`);
  await client.query(`LISTEN ${USER_CHANGES_ACK_CHANNEL}`);
}

/** Within the caller's transaction (PostgreSQL only). */
export async function notifyUserChangedIn(trx: Db, userId: string, changeId: string): Promise<void> {
  await sql`select pg_notify(${USER_CHANGES_NOTIFY_CHANNEL}, ${`${userId} ${changeId}`})`.execute(trx);
}

/** Tells the instance that made a change that this one has forgotten the user. */
export async function acknowledgeUserChange(client: PgQueryable, changeId: string, instanceId: string): Promise<void> {
  await client.query("select pg_notify($1, $2)", [USER_CHANGES_ACK_CHANNEL, `${changeId} ${instanceId}`]);
}

/** Two space-separated words (ids have no spaces); undefined for anything else. */
export function splitPair(payload: string): [string, string] | undefined {
  const parts = payload.split(" ");
  return parts.length === 2 && parts[0] && parts[1] ? [parts[0], parts[1]] : undefined;
}

// -- Presence: which instances are alive ------------------------------------------------------

/**
 * Each instance keeps one connection whose application_name is this prefix + its instance id
 * (the id it writes as lease owner). PostgreSQL ends a dead process's sessions as soon as its
 * sockets close, so pg_stat_activity is a liveness list that needs no heartbeat writes.
 */
export const PRESENCE_PREFIX = "headwater:";

/** Lease owners still holding unexpired leases while no session of theirs is connected. */
export async function absentLeaseOwners(db: Db, nowMs: number): Promise<string[]> {
  const { rows } = await sql<{ owner: string }>`
    select distinct lease_owner as owner from job_targets
    where lease_until > ${nowMs} and lease_owner is not null
      and lease_owner not in (
        select substr(application_name, ${PRESENCE_PREFIX.length + 1}) from pg_stat_activity
        where datname = current_database() and application_name like ${PRESENCE_PREFIX + "%"}
      )`.execute(db);
  return rows.map((r) => r.owner);
}

/** The ids of the instances connected to this database now (their presence sessions). */
export async function presentInstances(client: PgQueryable): Promise<string[]> {
  const res = (await client.query(
    `select substr(application_name, $1::int) as id from pg_stat_activity
      where datname = current_database() and application_name like $2`,
    [PRESENCE_PREFIX.length + 1, `${PRESENCE_PREFIX}%`],
  )) as { rows: Array<{ id: string }> };
  return res.rows.map((r) => r.id);
}

/** Frees the leases of instances that are gone, so their targets' jobs run elsewhere now. */
export async function releaseLeasesOf(db: Db, owners: string[]): Promise<number> {
  if (owners.length === 0) return 0;
  const res = await db
    .updateTable("job_targets")
    .set({ lease_owner: null, lease_until: 0 })
    .where("lease_owner", "in", owners)
    .executeTakeFirst();
  return Number(res.numUpdatedRows);
}
