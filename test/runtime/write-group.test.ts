/**
 * Grouped small writes (server/store/write-group.ts) on the embedded database: units submitted in
 * one turn each get their own result, and a unit that fails fails alone.
 */
import fs from "node:fs";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { openDb, type OpenedDb } from "../../server/store/db.js";
import { QuotasRepo } from "../../server/store/repos/quotas.js";
import { applyStateIn, SourceStateRepo } from "../../server/store/repos/source-state.js";
import { WriteGroup } from "../../server/store/write-group.js";
import { tempDataDir } from "./helpers.js";

describe("grouped writes on SQLite", () => {
  let dir: string;
  let opened: OpenedDb;
  let writes: WriteGroup;

  beforeEach(async () => {
    dir = tempDataDir();
    opened = await openDb({ dataDir: dir });
    writes = new WriteGroup(opened.db, true);
  });
  afterEach(async () => {
    await opened.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it("gives each unit of a turn its own result; a failing unit fails alone and the others are stored", async () => {
    const state = new SourceStateRepo(opened.db);
    const quotas = new QuotasRepo(opened.db, writes);
    const results = await Promise.allSettled([
      writes.run((trx) => applyStateIn(trx, "dc_a", { count: "1" })),
      writes.run(async (trx) => {
        await trx.insertInto("source_state").values({ source_id: "dc_b", key: "k", value: "2" }).execute();
        throw new Error("this unit fails");
      }),
      quotas.add("u_1", "2026-11-22", 3, 40),
      writes.run(
        async (trx) =>
          (
            await trx
              .selectFrom("source_state")
              .select("value")
              .where("source_id", "=", "dc_a")
              .executeTakeFirst()
          )?.value,
      ),
    ]);
    expect(results.map((r) => r.status)).toEqual(["fulfilled", "rejected", "fulfilled", "fulfilled"]);
    expect((results[1] as PromiseRejectedResult).reason).toMatchObject({ message: "this unit fails" });
    // A later unit of the same turn sees what an earlier one wrote.
    expect((results[3] as PromiseFulfilledResult<string>).value).toBe("1");
    expect(await state.snapshot("dc_a")).toEqual({ count: "1" });
    expect(await state.snapshot("dc_b")).toEqual({});
    expect(await quotas.usage("u_1", "2026-11-22")).toEqual({ invocations: 3, computeMs: 40 });
  });

  it("runs units submitted while a group commits in the next group", async () => {
    const state = new SourceStateRepo(opened.db);
    const first = writes.run((trx) => applyStateIn(trx, "dc_a", { n: "1" }));
    await new Promise((r) => setImmediate(r));
    const second = writes.run((trx) => applyStateIn(trx, "dc_a", { n: "2" }));
    await Promise.all([first, second]);
    expect(await state.snapshot("dc_a")).toEqual({ n: "2" });
  });
});
