/**
 * Subscriptions and auto-subscriptions. Every query is scoped to its owner: a glob (`p_*`,
 * `dc_*`) only ever matches the owner's own emitters because matching starts from the owner.
 */
import type { ExpressionBuilder, Kysely } from "kysely";
import { prepared } from "../prepared.js";
import type { Database } from "../schema.js";
import type { AutoSubscriptionsTable, SubscriptionsTable } from "../tables/events.js";

type Exec = Kysely<Database>;
export type SubscriptionRow = SubscriptionsTable;
export type AutoSubscriptionRow = AutoSubscriptionsTable;

/** The glob that covers an emitter id: `p_*` for workflows, `dc_*` for sources. */
export function globFor(emitterId: string): string | undefined {
  if (emitterId.startsWith("p_")) return "p_*";
  if (emitterId.startsWith("dc_")) return "dc_*";
  return undefined;
}

function emitterPatterns(emitterId: string): string[] {
  const glob = globFor(emitterId);
  return glob ? [emitterId, glob] : [emitterId];
}

/** Inserts the subscription unless the same one exists; returns the stored row either way. */
export async function upsertSubscription(db: Exec, row: SubscriptionRow): Promise<SubscriptionRow> {
  await db
    .insertInto("subscriptions")
    .values(row)
    .onConflict((oc) => oc.columns(["owner_id", "emitter_id", "channel", "listener_id"]).doNothing())
    .execute();
  return db
    .selectFrom("subscriptions")
    .selectAll()
    .where("owner_id", "=", row.owner_id)
    .where("emitter_id", "=", row.emitter_id)
    .where("channel", "=", row.channel)
    .where("listener_id", "=", row.listener_id)
    .executeTakeFirstOrThrow();
}

export async function deleteSubscription(
  db: Exec,
  ownerId: string,
  emitterId: string,
  listenerId: string,
  channel: string,
): Promise<boolean> {
  const res = await db
    .deleteFrom("subscriptions")
    .where("owner_id", "=", ownerId)
    .where("emitter_id", "=", emitterId)
    .where("listener_id", "=", listenerId)
    .where("channel", "=", channel)
    .executeTakeFirst();
  return Number(res.numDeletedRows) > 0;
}

export async function listSubscriptions(db: Exec, ownerId: string): Promise<SubscriptionRow[]> {
  return db
    .selectFrom("subscriptions")
    .selectAll()
    .where("owner_id", "=", ownerId)
    .orderBy("created_at", "desc")
    .orderBy("id", "desc")
    .execute();
}

/** subscribedListeners for one emitter (what most appends name): built once. */
/**
 * A workflow that is off receives nothing new (its endpoint refuses requests too): the runs it
 * had queued wait for it (workflows/runner.ts parks them), events emitted meanwhile are not
 * delivered to it. A probe of the workflows' primary key per subscription read.
 */
const notOff = (eb: ExpressionBuilder<Database, "subscriptions">) =>
  eb.not(
    eb.exists(
      eb
        .selectFrom("workflows")
        .select("workflows.id")
        .whereRef("workflows.id", "=", "subscriptions.listener_id")
        .where("workflows.active", "=", 0),
    ),
  );

const listenersOfOne = prepared((db, $: { owner: string; emitter: string; glob: string }) =>
  db
    .selectFrom("subscriptions")
    .select(["emitter_id", "channel", "listener_id"])
    .where("owner_id", "=", $.owner)
    .where("emitter_id", "in", [$.emitter, $.glob])
    .where(notOff),
);

export interface ListenerRow {
  /** An emitter id or a glob (`dc_*`, `p_*`). */
  emitter_id: string;
  channel: string;
  listener_id: string;
}

/** The owner's subscriptions of these emitters, direct or by glob (routing reads them in the append). */
export async function subscribedListeners(db: Exec, ownerId: string, emitterIds: string[]): Promise<ListenerRow[]> {
  if (emitterIds.length === 1) {
    const emitter = emitterIds[0]!;
    return listenersOfOne.rows(db, { owner: ownerId, emitter, glob: globFor(emitter) ?? emitter });
  }
  const patterns = [...new Set(emitterIds.flatMap(emitterPatterns))];
  return db
    .selectFrom("subscriptions")
    .select(["emitter_id", "channel", "listener_id"])
    .where("owner_id", "=", ownerId)
    .where("emitter_id", "in", patterns)
    .where(notOff)
    .execute();
}

export async function insertAutoSubscription(db: Exec, row: AutoSubscriptionRow): Promise<void> {
  await db.insertInto("auto_subscriptions").values(row).execute();
}

export async function listAutoSubscriptions(db: Exec, ownerId: string): Promise<AutoSubscriptionRow[]> {
  return db.selectFrom("auto_subscriptions").selectAll().where("owner_id", "=", ownerId).orderBy("created_at").execute();
}

/** Removes every subscription in which the id takes part, and its auto-subscriptions. */
export async function forgetParticipant(db: Exec, id: string): Promise<void> {
  await db
    .deleteFrom("subscriptions")
    .where((eb) => eb.or([eb("emitter_id", "=", id), eb("listener_id", "=", id)]))
    .execute();
  await db.deleteFrom("auto_subscriptions").where("listener_id", "=", id).execute();
}

/** True when the id is a source or workflow of the owner. */
export async function ownsParticipant(db: Exec, ownerId: string, id: string): Promise<boolean> {
  if (id.startsWith("dc_")) {
    const row = await db
      .selectFrom("sources")
      .select("id")
      .where("id", "=", id)
      .where("user_id", "=", ownerId)
      .executeTakeFirst();
    return row !== undefined;
  }
  if (id.startsWith("p_")) {
    const row = await db
      .selectFrom("workflows")
      .select("id")
      .where("id", "=", id)
      .where("owner_id", "=", ownerId)
      .executeTakeFirst();
    return row !== undefined;
  }
  return false;
}
