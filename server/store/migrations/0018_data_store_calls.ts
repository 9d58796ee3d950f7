/**
 * 0018: the data store writes of workflow runs, by call key (data-stores/once.ts). A run cut
 * short by a crash runs again as the same attempt; each of its writes that is recorded here
 * answers what it answered the first time instead of writing again, so an `increment` made
 * before a kill -9 is not made twice. A row is written in the transaction of its write; the
 * rows of a run go when its part ends (its results committed), and any left over after a day.
 */
import type { Kysely } from "kysely";

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable("data_store_calls")
    .addColumn("run_id", "text", (c) => c.notNull())
    // The run's attempt as its retry policy counts it (a crash does not make a new one).
    .addColumn("attempt", "integer", (c) => c.notNull())
    .addColumn("step", "integer", (c) => c.notNull())
    // The write's place among the step's writes, in the order its code made them (from 1).
    .addColumn("ordinal", "integer", (c) => c.notNull())
    // What the call answered, as JSON text.
    .addColumn("result", "text", (c) => c.notNull())
    .addColumn("created_ms", "bigint", (c) => c.notNull())
    .addPrimaryKeyConstraint("data_store_calls_pk", ["run_id", "attempt", "step", "ordinal"])
    .execute();
  await db.schema
    .createIndex("data_store_calls_created")
    .on("data_store_calls")
    .column("created_ms")
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable("data_store_calls").execute();
}
