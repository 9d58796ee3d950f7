/**
 * The database's write transactions, started after the current turn of the event loop.
 *
 * On the embedded database every writer shares one transaction per turn: HTTP requests' jobs,
 * appended events, job completions, quota counts, `this.db` changes. better-sqlite3 answers
 * synchronously, so without this each would commit alone, and a commit (with its WAL write) is
 * the dearest statement of all; with it, a busy server commits about once per turn. A unit that
 * fails rolls the group back; each unit then runs again alone, so one caller's error is never
 * another's.
 *
 * On PostgreSQL each unit has its own transaction (units of unrelated callers in one would hold
 * each other's row locks across instances, and could deadlock), run concurrently from the pool.
 *
 * A unit may run twice (in the group, then alone): it must take its input before the first run
 * and reuse it (see the event store and the job queue, which take their waiting callers lazily).
 */
import type { Kysely } from "kysely";
import { Histogram } from "prom-client";
import type { Database } from "./schema.js";

/** The database or a transaction on it (db.ts's Db, named here so that db.ts alone imports this file). */
type Db = Kysely<Database>;

export type WriteUnit<T> = (trx: Db) => Promise<T>;

/** Runs a unit in a transaction of its own (Kysely's, or sqlite-direct.ts's on SQLite). */
export type Transact = <T>(unit: WriteUnit<T>) => Promise<T>;

interface Waiting {
  unit: WriteUnit<unknown>;
  resolve: (value: unknown) => void;
  reject: (err: unknown) => void;
}

/** How long write transactions take to run and commit (`/metrics`; registered by server/metrics). */
export const dbCommitSeconds = new Histogram({
  name: "headwater_db_commit_seconds",
  help: "Duration of the write transactions of the hot paths (appends, job results, counters), commit included",
  buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
  registers: [],
});

export class WriteGroup {
  private waiting: Waiting[] = [];
  private scheduled = false;

  private readonly transact: Transact;

  constructor(
    db: Db,
    /** One transaction for the units of a turn (SQLite); false: one each. */
    private readonly grouping: boolean,
    transact?: Transact,
  ) {
    this.transact = transact ?? ((unit) => db.transaction().execute(unit));
  }

  /** Runs `unit` in a transaction after this turn; resolves with its result once committed. */
  run<T>(unit: WriteUnit<T>): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.waiting.push({ unit, resolve: resolve as (v: unknown) => void, reject });
      if (this.scheduled) return;
      this.scheduled = true;
      setImmediate(() => void this.flush());
    });
  }

  private async flush(): Promise<void> {
    try {
      // Units submitted while a group commits (its callers' continuations) join the next group.
      while (this.waiting.length > 0) {
        const group = this.waiting.splice(0);
        if (!this.grouping) {
          for (const w of group) {
            const end = dbCommitSeconds.startTimer();
            this.transact(w.unit).finally(end).then(w.resolve, w.reject);
          }
          continue;
        }
        let results: unknown[] | undefined;
        const end = dbCommitSeconds.startTimer();
        try {
          results = await this.transact(async (trx) => {
            const out: unknown[] = [];
            for (const w of group) out.push(await w.unit(trx));
            return out;
          });
        } catch {
          results = undefined;
        }
        end();
        if (results) group.forEach((w, i) => w.resolve(results[i]));
        else for (const w of group) await this.transact(w.unit).then(w.resolve, w.reject);
      }
    } finally {
      this.scheduled = false;
    }
  }
}
