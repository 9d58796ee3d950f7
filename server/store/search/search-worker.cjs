// @ts-check
/* eslint-disable @typescript-eslint/no-require-imports -- a plain CommonJS worker thread: it runs without the TypeScript loader */
/**
 * The SQLite search index's writer, in a worker thread (see search-index.ts): fills the FTS5
 * table in `headwater-search.db` from the events of `headwater.db`, on a connection of its own.
 *
 * The index's file is attached as `search`; this connection reads the events' database and never
 * writes it. A batch is one transaction (deferred: the events' database is only read, so only the
 * index's file is locked): it applies the deletes queued by the events' delete trigger (0009), in
 * order, then indexes the events past the mark. Every batch reads one snapshot of the events, so
 * a rowid freed by a delete and reused by a newer event is indexed only once the delete that freed
 * it has been applied (and has lowered the mark below it).
 *
 * Messages in: {type: "changed", seq} (events were stored or deleted; seq counts the calls),
 * {type: "catchUp", id} (index everything committed so far, then answer), {type: "stop"}.
 * Messages out: {type: "idle", seq, applied} (caught up with every change up to `seq`; deletes
 * up to `applied` are in), {type: "caughtUp", id, ok}, {type: "error", message},
 * {type: "stopped"}.
 */
"use strict";
const { parentPort, workerData } = require("node:worker_threads");
// The better-sqlite3 build for this Node (shared/sqlite-native.ts chose it).
const Database = require(workerData.module);
if (!parentPort) throw new Error("search-worker.cjs runs as a worker thread");
const port = parentPort;

/** Events per background batch: a batch is one commit of the index, and its merges. */
const BATCH = 2000;
/** Queued deletes applied per transaction. */
const DELETES = 5000;
/** A catch-up's batches: as large as a search is willing to wait for in one go. */
const CATCH_UP = 20_000;

/** The searched text of an event row: its JSON, then its summary (0006). */
const BODY = `event_json || char(10) || CASE WHEN meta_json = '{}' THEN '' ELSE coalesce(json_extract(meta_json, '$.summary'), '') END`;

const db = new Database(workerData.dbFile, { fileMustExist: true });
db.pragma("busy_timeout = 5000");
db.prepare("ATTACH DATABASE ? AS search").run(workerData.searchFile);
// Losing the index's last commits to a power cut costs a re-index, never an event.
db.pragma("search.synchronous = NORMAL");

const q = {
  state: db.prepare("SELECT token, indexed_rowid AS mark, applied_seq AS applied, check_rowid AS checkRowid, check_id AS checkId FROM search.search_state WHERE id = 1"),
  link: db.prepare("SELECT token FROM main.search_link WHERE id = 1").pluck(),
  lastSeq: db.prepare("SELECT coalesce((SELECT seq FROM main.sqlite_sequence WHERE name = 'search_deletes'), 0)").pluck(),
  idAt: db.prepare("SELECT id FROM main.events WHERE rowid = ?").pluck(),
  checkRow: db.prepare("SELECT rowid, id FROM main.events WHERE rowid <= ? ORDER BY rowid DESC LIMIT 1"),
  pendingDeleteOf: db.prepare("SELECT 1 FROM main.search_deletes WHERE seq > ? AND event_rowid = ? LIMIT 1").pluck(),
  deletes: db.prepare("SELECT seq, event_rowid AS rowid, top_after AS top FROM main.search_deletes WHERE seq > ? ORDER BY seq LIMIT ?"),
  unindex: db.prepare("DELETE FROM search.events_search WHERE rowid = ?"),
  top: db.prepare("SELECT max(rowid) AS top, count(*) AS n FROM (SELECT rowid FROM main.events WHERE rowid > ? ORDER BY rowid LIMIT ?)"),
  index: db.prepare(`INSERT INTO search.events_search (rowid, body) SELECT rowid, ${BODY} FROM main.events WHERE rowid > ? AND rowid <= ?`),
  save: db.prepare("UPDATE search.search_state SET indexed_rowid = ?, applied_seq = ?, check_rowid = ?, check_id = ? WHERE id = 1"),
  emptyIndex: db.prepare("INSERT INTO search.events_search (events_search) VALUES ('delete-all')"),
  reset: db.prepare("INSERT OR REPLACE INTO search.search_state (id, token, indexed_rowid, applied_seq, check_rowid, check_id) VALUES (1, ?, 0, ?, NULL, NULL)"),
};

/**
 * Whether the index file belongs to this database as it is now. Not, when it was made for
 * another one (the token: a copy made by `headwater backup` gets a new one), or for another state
 * of this one: a file copy of an older database put back (its deletes' sequence is behind the
 * index's), or one whose rows were renumbered (a VACUUM). The check row is the last event row at
 * or below the mark when the index last changed: it is still there with the same event id, or
 * its delete waits in the queue.
 */
function indexMatches() {
  const state = /** @type {{token: string, applied: number, checkRowid: number | null, checkId: string | null} | undefined} */ (q.state.get());
  if (!state || state.token !== q.link.get()) return false;
  if (state.applied > /** @type {number} */ (q.lastSeq.get())) return false;
  if (state.checkRowid !== null && q.idAt.get(state.checkRowid) !== state.checkId) {
    return q.pendingDeleteOf.get(state.applied, state.checkRowid) !== undefined;
  }
  return true;
}

/** Empties the index for this database: every event is indexed again, from the first. */
const rebuild = db.transaction(() => {
  q.emptyIndex.run();
  // Deletes queued so far are of events the rebuild will not find: skipped.
  q.reset.run(q.link.get(), q.lastSeq.get());
});

/** One batch; true when more is waiting (deletes or events). */
const step = db.transaction((/** @type {number} */ limit) => {
  const state = /** @type {{mark: number, applied: number}} */ (q.state.get());
  let { mark, applied } = state;
  const deletes = /** @type {{seq: number, rowid: number, top: number}[]} */ (q.deletes.all(applied, DELETES));
  for (const d of deletes) {
    if (d.rowid <= mark) q.unindex.run(d.rowid);
    if (mark > d.top) mark = d.top;
    applied = d.seq;
  }
  // Events past the mark only once every delete of this snapshot is in (see the file comment).
  let more = deletes.length === DELETES;
  if (!more) {
    const top = /** @type {{top: number | null, n: number}} */ (q.top.get(mark, limit));
    if (top.top !== null && top.n > 0) {
      q.index.run(mark, top.top);
      mark = top.top;
      more = top.n === limit;
    }
  }
  if (mark !== state.mark || applied !== state.applied) {
    const check = /** @type {{rowid: number, id: string} | undefined} */ (q.checkRow.get(mark));
    q.save.run(mark, applied, check?.rowid ?? null, check?.id ?? null);
  }
  return more;
});

/** Runs batches until nothing waits; true unless one failed (reported). */
function indexAll(/** @type {number} */ limit) {
  try {
    while (step(limit));
    return true;
  } catch (err) {
    report(err);
    return false;
  }
}

function report(/** @type {unknown} */ err) {
  port.postMessage({ type: "error", message: err instanceof Error ? err.message : String(err) });
}

/** The highest `changed` seq received. */
let seenSeq = 0;
/** @type {NodeJS.Timeout | undefined} */
let timer;
let stopping = false;

/** A background batch; the next one after the messages that came meanwhile. */
function background() {
  timer = undefined;
  if (stopping) return;
  // Every change up to `seq` was committed before its message was sent, so this batch's snapshot holds it.
  const seq = seenSeq;
  let more;
  try {
    more = step(BATCH);
  } catch (err) {
    // Not idle: the next search's catch-up tries again (and says so when it succeeds).
    report(err);
    return;
  }
  if (more) timer = setTimeout(background, 0);
  else idle(seq);
}

/** Tells the server the index holds every change up to `seq`, and how far the deletes are applied. */
function idle(/** @type {number} */ seq) {
  port.postMessage({ type: "idle", seq, applied: /** @type {{applied: number}} */ (q.state.get()).applied });
}

port.on("message", (/** @type {{type: string, seq?: number, id?: number}} */ m) => {
  if (stopping) return;
  if (m.type === "changed") {
    seenSeq = Math.max(seenSeq, m.seq ?? 0);
    // A short wait gathers a steady stream's events into one batch (one segment, fewer merges).
    timer ??= setTimeout(background, workerData.delayMs);
  } else if (m.type === "catchUp") {
    const ok = indexAll(CATCH_UP);
    port.postMessage({ type: "caughtUp", id: m.id, ok });
    // Its snapshot came after every change received so far.
    if (ok && timer === undefined) idle(seenSeq);
  } else if (m.type === "stop") {
    stopping = true;
    if (timer) clearTimeout(timer);
    db.close();
    port.postMessage({ type: "stopped" });
  }
});

// What the last process left, or the whole index when it does not match this database.
try {
  if (!indexMatches()) rebuild();
  timer = setTimeout(background, 0);
} catch (err) {
  report(err);
}
