/**
 * `backup <file>`: a consistent copy of the embedded SQLite database of a server's data dir,
 * taken while the server runs and writes.
 *
 * The one command that is not a client of the API: a backup needs the database file itself, so
 * this opens it directly with better-sqlite3 (the CLI never imports server/ internals; the only
 * thing shared with the server is where the file lives: `<HEADWATER_DATA_DIR>/headwater.db`,
 * default `~/.headwater`, the same rule as server/config.ts and server/store/db.ts).
 *
 * Why SQLite's online backup and not a file copy: the server runs in WAL mode, so committed
 * transactions may still be in `headwater.db-wal`, and a file copy taken during a checkpoint or a
 * commit can be torn. The backup API reads through a connection, which sees every committed
 * transaction (WAL included). It is done in ONE step: a step holds a read transaction, so the copy
 * is the database as of that moment; copying a few pages at a time instead would restart whenever
 * the server commits in between, which under steady load could be forever. A WAL reader never
 * blocks the server's writers (and its checkpoints are PASSIVE), so the server is not slowed down.
 *
 * The copy is written to a temporary file beside the target and renamed into place once SQLite's
 * quick_check passes, so `<file>` is either the previous file or a complete copy: one file, in
 * rollback-journal mode, which a server started on it turns back to WAL. The search index
 * (`headwater-search.db`) is not copied: a server started on a restored copy rebuilds it.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { SQLite as Database, type SqliteDatabase } from "../../shared/sqlite-native.js";
import type { Command } from "commander";
import type { Context } from "../context.js";
import { CliError, UsageError } from "../errors.js";
import type { Act } from "../options.js";

/** Pages per backup step: all of them at once (see above). */
const ALL_PAGES = 0x7fffffff;

export function registerBackup(program: Command, act: Act) {
  program
    .command("backup")
    .description("copy the server's embedded database to <file>, safely while the server runs (SQLite only)")
    .argument("<file>", "where to write the copy (a new SQLite database file)")
    .option("--data-dir <dir>", "the server's data dir (default: HEADWATER_DATA_DIR, else ~/.headwater)")
    .option("--force", "replace <file> if it exists")
    .action(act(backup));
}

/** The database file of a data dir, as the server names it. */
export function databaseFile(env: NodeJS.ProcessEnv, dataDir?: string): string {
  const dir = dataDir ?? env.HEADWATER_DATA_DIR ?? path.join(os.homedir(), ".headwater");
  return path.join(path.resolve(dir), "headwater.db");
}

async function backup(ctx: Context, args: string[], opts: Record<string, unknown>): Promise<void> {
  if (ctx.env.HEADWATER_DATABASE_URL) {
    throw new UsageError(
      "HEADWATER_DATABASE_URL is set: the server's database is PostgreSQL, which headwater backup does not copy; " +
        "back it up with pg_dump (e.g. pg_dump --format=custom --file=headwater.dump \"$HEADWATER_DATABASE_URL\")",
    );
  }
  const target = path.resolve(args[0]!);
  const source = databaseFile(ctx.env, opts.dataDir as string | undefined);
  if (!fs.existsSync(source)) {
    throw new UsageError(`no Headwater database at ${source}: point --data-dir (or HEADWATER_DATA_DIR) at the server's data dir`);
  }
  if (!fs.existsSync(path.dirname(target))) throw new UsageError(`the folder of ${target} does not exist`);
  if (target === source) throw new UsageError("the copy cannot replace the database it copies");
  if (fs.existsSync(target) && opts.force !== true) throw new UsageError(`${target} exists: choose another name, or add --force to replace it`);

  const temp = `${target}.partial-${process.pid}`;
  const removeTemp = () => {
    for (const f of [temp, `${temp}-journal`, `${temp}-wal`, `${temp}-shm`]) fs.rmSync(f, { force: true });
  };
  ctx.signal.addEventListener("abort", removeTemp, { once: true });
  const started = Date.now();
  let db: SqliteDatabase | undefined;
  try {
    db = new Database(source, { readonly: true, fileMustExist: true, timeout: 10_000 });
    const { totalPages } = await db.backup(temp, { progress: () => ALL_PAGES });
    db.close();
    db = undefined;
    // The copy keeps the source's WAL flag; a backup is better one self-contained file (the
    // server switches it back to WAL when it opens it).
    const check = new Database(temp, { fileMustExist: true });
    check.pragma("journal_mode = DELETE");
    // The copy names a search index of its own (server/store/migrations/0009): a server started
    // on it once it is restored rebuilds the index instead of trusting the one left in its data dir.
    if (check.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'search_link'").get() !== undefined) {
      check.prepare("UPDATE search_link SET token = lower(hex(randomblob(16)))").run();
    }
    const verdict = check.pragma("quick_check", { simple: true }) as string;
    check.close();
    if (verdict !== "ok") throw new CliError(`the copy failed SQLite's check (${verdict}); nothing was written to ${target}`);
    // A replaced copy's own WAL files (if a server ever opened it) would not match the new file.
    for (const f of [`${target}-wal`, `${target}-shm`]) fs.rmSync(f, { force: true });
    fs.renameSync(temp, target);
    const bytes = fs.statSync(target).size;
    const seconds = (Date.now() - started) / 1000;
    if (ctx.out.json) ctx.out.jsonLine({ file: target, database: source, bytes, pages: totalPages, seconds });
    else ctx.out.say(`backed up ${source} to ${target} (${formatBytes(bytes)}, ${totalPages} pages) in ${seconds.toFixed(1)} s`);
  } catch (err) {
    if (err instanceof CliError) throw err;
    // better-sqlite3's own messages (SQLITE_BUSY, a file that is not a database, no permission).
    throw new CliError(`backup failed: ${err instanceof Error ? err.message : String(err)}`);
  } finally {
    db?.close();
    removeTemp();
    ctx.signal.removeEventListener("abort", removeTemp);
  }
}

function formatBytes(n: number): string {
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(1)} KB`;
  return `${(n / 1024 / 1024).toFixed(1)} MB`;
}
