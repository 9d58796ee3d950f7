/**
 * A source's `this.db` snapshot remembered between batches (SQLite): every write of it, committed,
 * rolled back or deleted with its source or user, is what the next snapshot shows.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openDb, type OpenedDb } from "../db.js";
import { applyStateIn, markedSources, SourceStateRepo, stateRemovedElsewhere } from "./source-state.js";

describe("remembered source state", () => {
  let opened: OpenedDb;
  let repo: SourceStateRepo;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "hw-state-"));
  const write = (source: string, changes: Record<string, string | null>) => opened.writes.run((trx) => applyStateIn(trx, source, changes));

  beforeAll(async () => {
    opened = await openDb({ dataDir: dir });
    repo = new SourceStateRepo(opened.db, true);
  });
  afterAll(async () => {
    await opened?.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it("shows each committed write at the next snapshot", async () => {
    expect(await repo.snapshot("dc_a")).toEqual({});
    await write("dc_a", { n: "1" });
    expect(await repo.snapshot("dc_a")).toEqual({ n: "1" });
    await write("dc_a", { n: "2", m: "true" });
    await write("dc_a", { m: null });
    expect(await repo.snapshot("dc_a")).toEqual({ n: "2" });
  });

  it("keeps what was there when a write rolls back", async () => {
    await write("dc_b", { n: "1" });
    expect(await repo.snapshot("dc_b")).toEqual({ n: "1" });
    const failed = await opened.writes
      .run(async (trx) => {
        await applyStateIn(trx, "dc_b", { n: "2" });
        throw new Error("fails on purpose");
      })
      .catch((err: Error) => err.message);
    expect(failed).toBe("fails on purpose");
    expect(await repo.snapshot("dc_b")).toEqual({ n: "1" });
  });

  it("shows a write still committing once it has committed, never before", async () => {
    await write("dc_c", { n: "1" });
    expect(await repo.snapshot("dc_c")).toEqual({ n: "1" });
    let staged!: () => void;
    const stagedOnce = new Promise<void>((resolve) => (staged = resolve));
    const writing = opened.writes.run(async (trx) => {
      await applyStateIn(trx, "dc_c", { n: "2" });
      staged();
      await new Promise((r) => setTimeout(r, 30));
    });
    await stagedOnce;
    const during = repo.snapshot("dc_c");
    await writing;
    expect(await during).toEqual({ n: "2" });
    expect(await repo.snapshot("dc_c")).toEqual({ n: "2" });
  });

  it("gives each caller its own copy", async () => {
    await write("dc_d", { n: "1" });
    const mine = await repo.snapshot("dc_d");
    mine.n = "changed by the caller";
    mine.extra = "too";
    expect(await repo.snapshot("dc_d")).toEqual({ n: "1" });
  });

  it("forgets a source dropped, or whose user was deleted", async () => {
    await write("dc_e", { n: "1" });
    await write("dc_f", { n: "1" });
    expect(await repo.snapshot("dc_e")).toEqual({ n: "1" });
    expect(await repo.snapshot("dc_f")).toEqual({ n: "1" });
    await repo.drop("dc_e");
    expect(await repo.snapshot("dc_e")).toEqual({});
    // A user's deletion removes the rows in its own transaction, and says so.
    await opened.db.transaction().execute(async (trx) => {
      await trx.deleteFrom("source_state").where("source_id", "=", "dc_f").execute();
      stateRemovedElsewhere(["dc_f"]);
    });
    expect(await repo.snapshot("dc_f")).toEqual({});
  });

  it("keeps its memory of writes bounded, and a write whose mark was dropped still shows", async () => {
    // Remembered before any write of the source, then written, and not read since.
    expect(await repo.snapshot("dc_g")).toEqual({});
    await write("dc_g", { n: "1" });
    // Ten thousand other sources written since: the oldest marks (dc_g's among them) are dropped.
    stateRemovedElsewhere(Array.from({ length: 10_001 }, (_, i) => `dc_other${i}`));
    expect(markedSources()).toBeLessThanOrEqual(10_000);
    expect(await repo.snapshot("dc_g")).toEqual({ n: "1" });
    await write("dc_g", { n: "2" });
    expect(await repo.snapshot("dc_g")).toEqual({ n: "2" });
  });
});
