/**
 * Data stores wired for the server (app.ts): the record operations the API and code share, the
 * API's service, the answers to code's calls from the sandbox, whether a store is a user's (for
 * sources' props), and the sweep of expired records.
 */
import type { Db, DialectName } from "../store/db.js";
import { DataStoreRecordsRepo } from "../store/repos/data-store-records.js";
import { DataStoresRepo } from "../store/repos/data-stores.js";
import { dataStoreCalls } from "./code-calls.js";
import { RecordOps } from "./records.js";
import { DataStoreService } from "./service.js";
import { startSweeping } from "./sweep.js";

export function createDataStores(db: Db, dialect: DialectName, maxKeys: number) {
  const ops = new RecordOps(new DataStoresRepo(db, dialect), new DataStoreRecordsRepo(db, dialect), maxKeys);
  return {
    service: new DataStoreService(ops),
    /** Who answers a sandbox worker's data store calls, as its owner's. */
    calls: dataStoreCalls(ops),
    owns: async (userId: string, id: string) => (await ops.stores.findOwn(userId, id)) !== undefined,
    /** Deletes expired records every minute, until stopped. */
    startSweeping: (log: { warn(obj: unknown, msg: string): void }) => startSweeping(ops.records, log),
  };
}
