/** Multi-row inserts and `IN` deletes built once per row count (bulk.ts), on each database. */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { testDatabases, type FreshDatabase } from "../../test/support/databases.js";
import { bulkDelete, bulkInsert } from "./bulk.js";
import { openDb, type OpenedDb } from "./db.js";

const insertJobs = bulkInsert("jobs", ["id", "target_id", "owner_id", "trigger", "payload", "attempts", "run_after", "created_ms"]);
const deleteJobs = bulkDelete("jobs", "id");
const job = (id: string) => ({ id, target_id: "dc_t", owner_id: "u_1", trigger: "http", payload: `{"n":"${id}"}`, attempts: 0, run_after: 1, created_ms: 2 });

describe.each(testDatabases())("bulk statements on $name", (database) => {
  let fresh: FreshDatabase;
  let opened: OpenedDb;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "hw-bulk-"));

  beforeAll(async () => {
    fresh = await database.create();
    opened = await openDb({ databaseUrl: fresh.databaseUrl, dataDir: dir });
  });
  afterAll(async () => {
    await opened?.close();
    await fresh?.drop();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  const stored = async () =>
    (await opened.db.selectFrom("jobs").select(["id", "payload"]).orderBy("id").execute()).map((r) => `${r.id}=${r.payload}`);

  it("inserts and deletes any number of rows, each row's values in their own columns", async () => {
    await insertJobs(opened.db, [job("a"), job("b"), job("c")]);
    await insertJobs(opened.db, [job("d")]);
    // The same row count again: the shape built for three is used again with other values.
    await opened.db.transaction().execute((trx) => insertJobs(trx, [job("e"), job("f"), job("g")]));
    expect(await stored()).toEqual(["a", "b", "c", "d", "e", "f", "g"].map((id) => `${id}={"n":"${id}"}`));

    expect(await deleteJobs(opened.db, ["b", "f", "missing"])).toBe(2);
    expect(await deleteJobs(opened.db, ["a"])).toBe(1);
    expect(await deleteJobs(opened.db, [])).toBe(0);
    expect(await stored()).toEqual(["c", "d", "e", "g"].map((id) => `${id}={"n":"${id}"}`));
  });

  it("treats values as values, never as SQL", async () => {
    const hostile = { ...job("x'); DROP TABLE jobs; --"), payload: "'\"\\" };
    await insertJobs(opened.db, [hostile, job("y")]);
    expect(await deleteJobs(opened.db, ["x'); DROP TABLE jobs; --", "y"])).toBe(2);
    expect((await stored()).length).toBe(4);
  });
});
