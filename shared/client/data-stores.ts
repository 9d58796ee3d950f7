/**
 * The client's methods for data stores (decisions.md "Workflow triggers, environment variables
 * and data stores"): stores, and their records by key (URL-encoded here).
 */
import {
  DataStore,
  DataStoreRecord,
  Page,
  type PageQuery,
  type PutRecordBody,
  type RecordListQuery,
} from "../resources/index.js";
import { Data, enc, pageQuery, type Request } from "./request.js";

export function dataStoreMethods(request: Request) {
  const records = (id: string) => `/data_stores/${enc(id)}/records`;
  const record = (id: string, key: string) => `${records(id)}/${enc(key)}`;
  return {
    createDataStore: async (name: string) =>
      (await request("POST", "/data_stores", Data(DataStore), { body: { name } })).data,
    /** A page of the user's stores, newest first. */
    listMyDataStores: (q?: PageQuery) =>
      request("GET", "/users/me/data_stores", Page(DataStore), { query: pageQuery(q) }),
    getDataStore: async (id: string) =>
      (await request("GET", `/data_stores/${enc(id)}`, Data(DataStore))).data,
    renameDataStore: async (id: string, name: string) =>
      (await request("PATCH", `/data_stores/${enc(id)}`, Data(DataStore), { body: { name } })).data,
    /** 409 `data_store_in_use` while a source or a workflow step names it. */
    deleteDataStore: (id: string) => request("DELETE", `/data_stores/${enc(id)}`, null),
    /** A page of live records in ascending key order, optionally of keys starting with `prefix`. */
    listDataStoreRecords: (id: string, q?: RecordListQuery) =>
      request("GET", records(id), Page(DataStoreRecord), { query: { ...pageQuery(q), prefix: q?.prefix } }),
    /** 404 `not_found` when the key is absent or expired. */
    getDataStoreRecord: async (id: string, key: string) =>
      (await request("GET", record(id, key), Data(DataStoreRecord))).data,
    putDataStoreRecord: async (id: string, key: string, body: PutRecordBody) =>
      (await request("PUT", record(id, key), Data(DataStoreRecord), { body })).data,
    deleteDataStoreRecord: (id: string, key: string) => request("DELETE", record(id, key), null),
    incrementDataStoreRecord: async (id: string, key: string, by?: number) =>
      (
        await request("POST", `${record(id, key)}/increment`, Data(DataStoreRecord), {
          body: by === undefined ? {} : { by },
        })
      ).data,
  };
}
