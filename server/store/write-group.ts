/**
 * Small write transactions, grouped. better-sqlite3 answers synchronously, so writes made by
 * several callers in the same turn of the event loop (batches of several sources ending together:
 * a job completion, a quota count, a `this.db` change each) would commit one by one. Here they
 * share one transaction, started after the current turn. A unit that fails rolls the group back;
 * each unit then runs again alone, so one caller's error is never another's.
 *
 * Only for the embedded database: on PostgreSQL, units of unrelated callers in one transaction
 * would hold each other's row locks across instances (and could deadlock), so each runs alone.
 */
import type { Transaction } from "kysely";
import type { Db } from "./db.js";
import type { Database } from "./schema.js";

export type WriteUnit<T> = (trx: Transaction<Database>) => Promise<T>;

interface Waiting {
  unit: WriteUnit<unknown>;
  resolve: (value: unknown) => void;
  reject: (err: unknown) => void;
}

export class WriteGroup {
  private waiting: Waiting[] = [];
  private busy = false;

  constructor(
    private readonly db: Db,
    private readonly grouping: boolean,
  ) {}

  run<T>(unit: WriteUnit<T>): Promise<T> {
    if (!this.grouping) return this.db.transaction().execute(unit);
    return new Promise<T>((resolve, reject) => {
      this.waiting.push({ unit, resolve: resolve as (v: unknown) => void, reject });
      if (this.busy) return;
      this.busy = true;
      setImmediate(() => void this.flush());
    });
  }

  private async flush(): Promise<void> {
    try {
      while (this.waiting.length > 0) {
        const group = this.waiting.splice(0);
        let results: unknown[] | undefined;
        try {
          results = await this.db.transaction().execute(async (trx) => {
            const out: unknown[] = [];
            for (const w of group) out.push(await w.unit(trx));
            return out;
          });
        } catch {
          results = undefined;
        }
        if (results) group.forEach((w, i) => w.resolve(results[i]));
        else for (const w of group) await this.db.transaction().execute(w.unit).then(w.resolve, w.reject);
      }
    } finally {
      this.busy = false;
    }
  }
}
