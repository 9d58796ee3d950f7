/**
 * Data stores wired for the server (app.ts): the record operations the API and code share, the
 * API's service, the answers to code's calls from the sandbox, whether a store is a user's (for
 * sources' props), the runs' call keys (a run's writes are made once: once.ts), and the sweep of
 * expired records and forgotten keys.
 */
import type { Db, DialectName } from "../store/db.js";
import { DataStoreRecordsRepo } from "../store/repos/data-store-records.js";
import { DataStoresRepo } from "../store/repos/data-stores.js";
import { DataStoreCallsRepo } from "../store/repos/data-store-calls.js";
import { dataStoreCalls } from "./code-calls.js";
import { OnceWrites } from "./once.js";
import { RecordOps } from "./records.js";
import { DataStoreService } from "./service.js";
import { startSweeping } from "./sweep.js";

export function createDataStores(db: Db, dialect: DialectName, maxKeys: number) {
  const ops = new RecordOps(new DataStoresRepo(db, dialect), new DataStoreRecordsRepo(db, dialect), maxKeys);
  const once = new OnceWrites(ops, new DataStoreCallsRepo(db));
  return {
    service: new DataStoreService(ops),
    /** Who answers a sandbox worker's data store calls, as its owner's. */
    calls: dataStoreCalls(ops, once),
    /** Forgets runs' call keys (a part of each is stored: it never runs again). */
    forgetCalls: (runIds: string[]) => once.forgetRuns(runIds),
    owns: async (userId: string, id: string) => (await ops.stores.findOwn(userId, id)) !== undefined,
    /** Deletes expired records and old call keys every minute, until stopped (and ended runs' keys then). */
    startSweeping: (log: { warn(obj: unknown, msg: string): void }) => startSweeping(ops.records, once, log),
  };
}
