// @ts-check
/* eslint-disable @typescript-eslint/no-require-imports -- a plain CommonJS worker thread: it runs without the TypeScript loader */
/**
 * The embedded database's WAL checkpoints, in a worker thread (see checkpointer.ts): copies
 * committed pages from the WAL into the database file (and syncs it) on a connection of its own,
 * so the server's event loop never waits for it. PASSIVE: it never blocks the writer; whatever
 * was committed during a checkpoint is copied by the next one.
 */
"use strict";
const { parentPort, workerData } = require("node:worker_threads");
// The better-sqlite3 build for this Node (shared/sqlite-native.ts chose it).
const Database = require(workerData.module);

const db = new Database(workerData.file, { fileMustExist: true });
db.pragma("busy_timeout = 5000");
// This connection never writes: it must not checkpoint on its own schedule either.
db.pragma("wal_autocheckpoint = 0");

let stopping = false;
const timer = setInterval(() => {
  if (stopping) return;
  try {
    db.pragma("wal_checkpoint(PASSIVE)");
  } catch (err) {
    // A busy database (another checkpoint, a schema change) is tried again at the next tick.
    if (!/busy|locked/i.test(String(err && err.message))) parentPort.postMessage({ error: String(err && err.message) });
  }
}, workerData.intervalMs);

parentPort.on("message", (m) => {
  if (m !== "stop") return;
  stopping = true;
  clearInterval(timer);
  db.close();
  parentPort.postMessage({ stopped: true });
});
