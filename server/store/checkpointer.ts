/**
 * WAL checkpoints of the embedded database, off the event loop.
 *
 * SQLite's automatic checkpoint runs inside the commit that crosses its threshold (1,000 pages):
 * that commit copies about 4 MB into the database file and syncs it, and the server's one thread
 * waits meanwhile. Under 1,000 endpoint events a second that was a 6–12 ms stall every quarter
 * second (measured: half of all commit time, and the worst of the latency tail). Here a worker
 * thread with its own connection checkpoints every `intervalMs` instead, concurrently with the
 * writer.
 *
 * A checkpoint running beside a writer may never find a moment with nothing new to copy, and the
 * WAL is only rewound after one does; so the server's own connection keeps an automatic
 * checkpoint at a much higher threshold, as a bound on the WAL's size under endless load.
 */
import { Worker } from "node:worker_threads";
import { CHECKPOINT_WORKER as WORKER } from "../../shared/app-paths.js";
import { SQLITE_MODULE, type SqliteDatabase as SqliteDb } from "../../shared/sqlite-native.js";

/** Pages in the WAL before the server's own connection checkpoints (64 MB at 4 KB a page). */
const BACKSTOP_PAGES = 16_384;

export interface Checkpointer {
  stop(): Promise<void>;
}

export function startCheckpointer(sqlite: SqliteDb, file: string, intervalMs = 100): Checkpointer {
  const worker = new Worker(WORKER, { workerData: { file, intervalMs, module: SQLITE_MODULE } });
  sqlite.pragma(`wal_autocheckpoint = ${BACKSTOP_PAGES}`);
  // Without the worker, the server checkpoints as SQLite does by default.
  const fallBack = () => {
    if (sqlite.open) sqlite.pragma("wal_autocheckpoint = 1000");
  };
  worker.on("error", fallBack);
  worker.on("message", (m: { error?: string }) => {
    if (m.error) console.error(`database checkpoints: ${m.error}`);
  });
  worker.unref();
  let stopped: Promise<void> | undefined;
  return {
    stop() {
      stopped ??= new Promise<void>((resolve) => {
        // Waited for like any other work: unref'd, a process with nothing else to do (a script,
        // the bench runner between suites) would exit here, its close never settling.
        worker.ref();
        const done = () => resolve();
        worker.once("exit", done);
        worker.once("message", (m: { stopped?: boolean }) => {
          if (m.stopped) void worker.terminate().then(done, done);
        });
        worker.postMessage("stop");
        // A worker that does not answer (it died) is not waited for.
        setTimeout(() => void worker.terminate().then(done, done), 2000).unref();
      });
      return stopped;
    },
  };
}
