/**
 * Statements run on better-sqlite3 directly (sqlite-direct.ts) behave as through Kysely: same
 * results, and never inside a transaction they are not part of.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { openDb, type OpenedDb } from "./db.js";
import { prepared } from "./prepared.js";

const insertJob = prepared((db, $: { id: string }) =>
  db
    .insertInto("jobs")
    .values({
      id: $.id,
      target_id: "dc_t",
      owner_id: "u_1",
      trigger: "http",
      payload: "{}",
      attempts: 0,
      run_after: 1,
      created_ms: 2,
    }),
);
const deleteJobs = prepared((db, $: { target: string }) =>
  db.deleteFrom("jobs").where("target_id", "=", $.target),
);
const jobIds = prepared((db, $: { target: string }) =>
  db.selectFrom("jobs").select("id").where("target_id", "=", $.target).orderBy("id"),
);

describe("statements run directly on the embedded database", () => {
  let opened: OpenedDb;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "hw-direct-"));
  const ids = async () => (await jobIds.rows(opened.db, { target: "dc_t" })).map((r) => r.id);

  beforeAll(async () => {
    opened = await openDb({ dataDir: dir });
  });
  beforeEach(async () => {
    await opened.db.deleteFrom("jobs").execute();
  });
  afterAll(async () => {
    await opened?.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it("give the results Kysely gives: rows, and the rows a write changed", async () => {
    await insertJob.execute(opened.db, { id: "a" });
    await opened.writes.run((trx) => insertJob.execute(trx, { id: "b" }));
    expect(await ids()).toEqual(["a", "b"]);
    expect(await deleteJobs.affected(opened.db, { target: "dc_t" })).toBe(2);
    expect(await ids()).toEqual([]);
  });

  it("never run inside a transaction someone else has open: they wait for it", async () => {
    let inserted!: () => void;
    const insertedOnce = new Promise<void>((resolve) => (inserted = resolve));
    // A Kysely transaction that inserts, waits, then fails and rolls back.
    const failing = opened.db
      .transaction()
      .execute(async (trx) => {
        await insertJob.execute(trx, { id: "rolled-back" });
        inserted();
        await new Promise((r) => setTimeout(r, 30));
        throw new Error("fails on purpose");
      })
      .catch((err: Error) => err.message);
    await insertedOnce;
    // Meanwhile, on the database: had this run in that transaction, it would be rolled back too.
    const mine = insertJob.execute(opened.db, { id: "mine" });
    expect(await failing).toBe("fails on purpose");
    await mine;
    expect(await ids()).toEqual(["mine"]);
  });

  it("roll back with the write transaction they are part of", async () => {
    const failed = await opened.writes
      .run(async (trx) => {
        await insertJob.execute(trx, { id: "x" });
        await insertJob.execute(trx, { id: "x" }); // the same id: a constraint error
      })
      .catch((err: Error) => err.message);
    expect(failed).toMatch(/UNIQUE/);
    expect(await ids()).toEqual([]);
    // The connection is usable again, in and out of transactions.
    await opened.writes.run((trx) => insertJob.execute(trx, { id: "y" }));
    await insertJob.execute(opened.db, { id: "z" });
    expect(await ids()).toEqual(["y", "z"]);
  });

  it("hold back Kysely's users while a write transaction has the connection without them", async () => {
    let begun!: () => void;
    const begunOnce = new Promise<void>((resolve) => (begun = resolve));
    const writing = opened.writes.run(async (trx) => {
      await insertJob.execute(trx, { id: "w1" });
      begun();
      await new Promise((r) => setTimeout(r, 30));
      // A query Kysely builds and runs, in the same transaction.
      await trx.insertInto("jobs").values({ id: "w2", target_id: "dc_t", owner_id: "u_1", trigger: "http", payload: "{}", attempts: 0, run_after: 1, created_ms: 2 }).execute();
    });
    await begunOnce;
    // Asked for meanwhile: a read that must see both rows or neither, and a transaction of its own
    // that fails (had it run inside the other, its BEGIN would fail, or its ROLLBACK take w1 with it).
    const read = opened.db.selectFrom("jobs").select("id").orderBy("id").execute();
    const failing = opened.db
      .transaction()
      .execute(async (trx) => {
        await insertJob.execute(trx, { id: "k" });
        throw new Error("fails on purpose");
      })
      .catch((err: Error) => err.message);
    await writing;
    expect((await read).map((r) => r.id)).toEqual(["w1", "w2"]);
    expect(await failing).toBe("fails on purpose");
    expect(await ids()).toEqual(["w1", "w2"]);
  });

  it("roll back a unit's own Kysely queries with the rest of its transaction", async () => {
    const failed = await opened.writes
      .run(async (trx) => {
        await trx.insertInto("jobs").values({ id: "built", target_id: "dc_t", owner_id: "u_1", trigger: "http", payload: "{}", attempts: 0, run_after: 1, created_ms: 2 }).execute();
        await insertJob.execute(trx, { id: "compiled" });
        throw new Error("fails on purpose");
      })
      .catch((err: Error) => err.message);
    expect(failed).toBe("fails on purpose");
    expect(await ids()).toEqual([]);
  });
});
