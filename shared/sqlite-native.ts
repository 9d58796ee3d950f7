/**
 * The better-sqlite3 build for the running Node (Node only: the server's store and the CLI's
 * `backup` load SQLite through this, never by importing "better-sqlite3" themselves).
 *
 * Two majors are installed, because neither runs on every supported Node:
 * - better-sqlite3 13 (`better-sqlite3-napi`, a Node-API addon with prebuilt binaries) needs
 *   Node-API 10 (Node 22.14+, 23.6+, 24): on Node 20 (Node-API 9) it crashes in its first call.
 * - better-sqlite3 12 derives from `node::ObjectWrap`, whose Node 24 header registers an
 *   environment cleanup hook per object and removes it in the destructor. A statement collected
 *   by a GC that V8 runs from a task, outside any context, then aborts the process:
 *   "Assertion failed: (env) != nullptr" in node::RemoveEnvironmentCleanupHook. Our statement
 *   cache evicts statements and the checkpoint worker prepares one per checkpoint, so a server
 *   on Node 24 died within seconds. Node 20 and 22 headers have no such hook.
 * So the choice is by the Node-API version this Node offers, which is exactly what 13 needs.
 */
import { createRequire } from "node:module";
import type BetterSqlite3 from "better-sqlite3";

/** The Node-API version better-sqlite3 13 is built for. */
const NAPI_FOR_13 = 10;

/** The package name to require for this Node (also for worker threads, which load it themselves). */
export const SQLITE_MODULE =
  Number(process.versions.napi ?? 0) >= NAPI_FOR_13 ? "better-sqlite3-napi" : "better-sqlite3";

/** Both majors have the same API (13 changed the binding, not the JavaScript interface). */
export const SQLite = createRequire(import.meta.url)(SQLITE_MODULE) as typeof BetterSqlite3;
export type { Database as SqliteDatabase, Statement as SqliteStatement } from "better-sqlite3";
