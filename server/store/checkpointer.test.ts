/**
 * WAL checkpoints in a worker thread (checkpointer.ts): committed pages reach the database file
 * without the server's connection checkpointing (its own threshold is far above what is written here).
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { pathToFileURL } from "node:url";
import { sql } from "kysely";
import { afterEach, expect, it } from "vitest";
import { openDb, type OpenedDb } from "./db.js";

let dir: string | undefined;
let opened: OpenedDb | undefined;

afterEach(async () => {
  await opened?.close();
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

it("copies committed pages into the database file in the background", async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "hw-checkpoint-"));
  opened = await openDb({ dataDir: dir });
  const file = path.join(dir, "headwater.db");
  const before = fs.statSync(file).size;
  // About 4 MB of rows, committed to the WAL.
  await opened.db.transaction().execute(async (trx) => {
    for (let i = 0; i < 400; i++) {
      await trx
        .insertInto("source_state")
        .values({ source_id: "dc_checkpoint", key: `k${i}`, value: "x".repeat(10_000) })
        .execute();
    }
  });
  const deadline = Date.now() + 5000;
  while (fs.statSync(file).size < before + 4_000_000 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
  expect(fs.statSync(file).size).toBeGreaterThan(before + 4_000_000);
  // And the database reads back what was written.
  const { rows } = await sql<{ n: number }>`select count(*) as n from source_state`.execute(opened.db);
  expect(Number(rows[0]!.n)).toBe(400);
});

it("lets a program that closes its database go on after the close", async () => {
  // The checkpoint thread does not keep a process alive while it runs, and must not let one end
  // while its close is awaited: a script that closes its database and then prints must print.
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "hw-checkpoint-"));
  const script = path.join(dir, "close.mts");
  const dbModule = pathToFileURL(path.join(import.meta.dirname, "db.ts")).href;
  fs.writeFileSync(
    script,
    `import { openDb } from ${JSON.stringify(dbModule)};\n` +
      `const opened = await openDb({ dataDir: ${JSON.stringify(dir)} });\n` +
      `await opened.close();\n` +
      `console.log("closed");\n`,
  );
  const { stdout } = await promisify(execFile)(process.execPath, ["--import", "tsx", script], { cwd: path.join(import.meta.dirname, "..", "..") });
  expect(stdout.trim()).toBe("closed");
});
