/**
 * The SQLite search index, in a file of its own written by a worker thread (migrations/0009,
 * search-worker.cjs). This side, on the server's thread:
 * - attaches the index's file to the server's connection as `search`, read-only by convention:
 *   searches read `search.events_search` there (repos/event-search.ts), and nothing on this
 *   thread writes it, so the index's commits and their merges never wait for, or hold up, a
 *   commit of the events;
 * - tells the worker when events were stored or deleted (at most one message per batch);
 * - lets a search wait until every event committed before it is indexed;
 * - empties the events' queue of deletes (`search_deletes`) once the worker has applied them.
 *
 * Where the worker cannot run or fails, `upToDate()` answers false and searches scan the
 * channel's events instead: slower, never wrong.
 */
import fs from "node:fs";
import { Worker } from "node:worker_threads";
import { sql } from "kysely";
import { SEARCH_WORKER } from "../../../shared/app-paths.js";
import { SQLITE_MODULE, type SqliteDatabase } from "../../../shared/sqlite-native.js";
import type { WriteGroup } from "../write-group.js";

/** How long the worker gathers changes before a background batch (one FTS segment per batch). */
const GATHER_MS = 25;
/** Queued deletes removed per transaction on the server's thread. */
const PRUNE = 2000;

export interface SearchIndex {
  /** Events were stored or deleted: the worker indexes them soon. */
  changed(): void;
  /**
   * Resolves true once every event committed before the call is in the index, false when the
   * index cannot be brought up to date (the caller then searches without it).
   */
  upToDate(): Promise<boolean>;
  close(): Promise<void>;
}

export interface SearchIndexOptions {
  /** The server's connection; the index's file gets attached to it. */
  sqlite: SqliteDatabase;
  dbFile: string;
  searchFile: string;
  writes: WriteGroup;
  onError?: (message: string) => void;
}

type FromWorker =
  | { type: "idle"; seq: number; applied: number }
  | { type: "caughtUp"; id: number; ok: boolean }
  | { type: "error"; message: string }
  | { type: "stopped" };

/**
 * Attaches the index's file (made owner-only, like the database) and creates its tables when new.
 * A file SQLite cannot use (not a database, damaged) is only an index: it is removed and made
 * anew, and the worker fills it from the events.
 */
function attachSearchFile(sqlite: SqliteDatabase, searchFile: string, onError: (message: string) => void): void {
  try {
    attach(sqlite, searchFile);
  } catch (err) {
    onError(`${searchFile} cannot be used (${err instanceof Error ? err.message : String(err)}); it is built again from the events`);
    if (sqlite.prepare("SELECT 1 FROM pragma_database_list WHERE name = 'search'").get() !== undefined) sqlite.exec("DETACH DATABASE search");
    for (const f of [searchFile, `${searchFile}-wal`, `${searchFile}-shm`]) fs.rmSync(f, { force: true });
    attach(sqlite, searchFile);
  }
}

function attach(sqlite: SqliteDatabase, searchFile: string): void {
  // The index holds the events' text: the same permissions as the database, whatever the umask.
  fs.closeSync(fs.openSync(searchFile, "a", 0o600));
  fs.chmodSync(searchFile, 0o600);
  sqlite.prepare("ATTACH DATABASE ? AS search").run(searchFile);
  sqlite.pragma("search.journal_mode = WAL");
  sqlite.exec(`CREATE TABLE IF NOT EXISTS search.search_state (id INTEGER PRIMARY KEY CHECK (id = 1), token TEXT NOT NULL,
    indexed_rowid INTEGER NOT NULL, applied_seq INTEGER NOT NULL, check_rowid INTEGER, check_id TEXT)`);
  sqlite.exec(`CREATE VIRTUAL TABLE IF NOT EXISTS search.events_search USING fts5(body, tokenize = 'trigram', content = '', contentless_delete = 1)`);
  // Reads the index's pages: a file damaged past its first page fails here, not at the first search.
  sqlite.prepare("SELECT count(*) FROM search.search_state").get();
}

export function startSearchIndex(o: SearchIndexOptions): SearchIndex {
  const onError = o.onError ?? ((message: string) => console.error(`search index: ${message}`));
  attachSearchFile(o.sqlite, o.searchFile, onError);
  const worker = new Worker(SEARCH_WORKER, {
    workerData: { dbFile: o.dbFile, searchFile: o.searchFile, delayMs: GATHER_MS, module: SQLITE_MODULE },
  });
  worker.unref();
  let alive = true;
  let closing: Promise<void> | undefined;
  /** Calls of changed(), and whether the worker has one not answered by an idle yet. */
  let changes = 0;
  let notified = false;
  let nextId = 0;
  const catchUps = new Map<number, (ok: boolean) => void>();
  let pruned = 0;
  let pruning = false;


  worker.on("error", (err) => {
    if (!closing) onError(`the worker failed (${err.message}); searches scan the events instead`);
  });
  worker.on("exit", () => {
    alive = false;
    // Searches waiting on it scan instead.
    for (const resolve of catchUps.values()) resolve(false);
    catchUps.clear();
  });
  worker.on("message", (m: FromWorker) => {
    if (m.type === "error") onError(m.message);
    else if (m.type === "caughtUp") {
      catchUps.get(m.id)?.(m.ok);
      catchUps.delete(m.id);
      if (catchUps.size === 0) worker.unref();
    } else if (m.type === "idle") {
      // A change after the batch's snapshot began has not been seen: tell the worker again.
      if (changes > m.seq) worker.postMessage({ type: "changed", seq: changes });
      else notified = false;
      prune(m.applied);
    }
  });

  /** Removes applied deletes from the queue, a slice per transaction, behind the server's other writes. */
  function prune(applied: number): void {
    if (pruning || applied <= pruned || closing) return;
    pruning = true;
    o.writes
      .run(async (trx) => {
        const r = await sql`DELETE FROM search_deletes WHERE seq IN (SELECT seq FROM search_deletes WHERE seq <= ${applied} ORDER BY seq LIMIT ${PRUNE})`.execute(trx);
        return Number(r.numAffectedRows ?? 0);
      })
      .then(
        (n) => {
          pruning = false;
          if (n < PRUNE) pruned = applied;
          else setImmediate(() => prune(applied));
        },
        (err: unknown) => {
          pruning = false;
          if (!closing) onError(`removing applied deletes failed: ${String(err)}`);
        },
      );
  }

  return {
    changed() {
      changes++;
      if (notified || !alive || closing) return;
      notified = true;
      worker.postMessage({ type: "changed", seq: changes });
    },
    upToDate() {
      if (!alive || closing) return Promise.resolve(false);
      return new Promise<boolean>((resolve) => {
        const id = ++nextId;
        catchUps.set(id, resolve);
        // Waited for like any other work while a search waits on it.
        worker.ref();
        worker.postMessage({ type: "catchUp", id });
      });
    },
    close() {
      closing ??= new Promise<void>((resolve) => {
        if (!alive) return resolve();
        worker.ref();
        const done = () => resolve();
        worker.once("exit", done);
        worker.on("message", (m: FromWorker) => {
          if (m.type === "stopped") void worker.terminate().then(done, done);
        });
        worker.postMessage({ type: "stop" });
        // A worker that does not answer is not waited for.
        setTimeout(() => void worker.terminate().then(done, done), 2000).unref();
      });
      return closing;
    },
  };
}
