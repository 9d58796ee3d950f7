/**
 * Users' data stores and their records (decisions.md "Workflow triggers, environment variables
 * and data stores"); created by 0017_data_stores, the calls by 0018_data_store_calls.
 */

export interface DataStoresTable {
  /** `ds_<20 characters>`. */
  id: string;
  user_id: string;
  name: string;
  /** Orders lists newest first (strictly increasing within one process). */
  created_ms: number;
  created_at: number;
  updated_at: number;
}

export interface DataStoreRecordsTable {
  store_id: string;
  key: string;
  /** JSON text. */
  value: string;
  /** Epoch ms after which the record reads as absent; NULL: it never expires. */
  expires_at_ms: number | null;
}

/** A workflow run's data store write, by its call key, and what it answered (data-stores/once.ts). */
export interface DataStoreCallsTable {
  run_id: string;
  attempt: number;
  step: number;
  ordinal: number;
  /** JSON text. */
  result: string;
  created_ms: number;
}

export interface DataStoreTables {
  data_stores: DataStoresTable;
  data_store_records: DataStoreRecordsTable;
  data_store_calls: DataStoreCallsTable;
}
