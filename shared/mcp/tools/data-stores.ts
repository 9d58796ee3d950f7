/**
 * Data stores for an agent (decisions.md "Workflow triggers, environment variables and data
 * stores"): list and create stores; read, write, delete, list and increment their records. A store
 * that is not the user's is "not found", as over REST.
 */
import { z } from "zod";
import { DATA_STORE_LIMITS, dataStoreKeyProblem, dataStoreValueText } from "../../resources/index.js";
import { CHANGE, CREATE, DESTROY, READ, tool } from "./define.js";

const StoreOut = z.object({
  id: z.string(),
  name: z.string(),
  keys: z.number().describe("live (unexpired) records"),
  bytes: z.number(),
  created_at: z.number(),
  updated_at: z.number(),
});

const RecordOut = z.object({
  key: z.string(),
  value: z.unknown(),
  expires_at_ms: z.number().nullable().describe("when it expires (epoch ms); null: never"),
});

const StoreId = z.string().min(1).max(200).describe("the data store's id (ds_...), from list_data_stores");
const Key = z
  .string()
  .refine((k) => dataStoreKeyProblem(k) === undefined, `1 to ${DATA_STORE_LIMITS.keyBytes} bytes`)
  .describe("the record's key");

export const listDataStores = tool({
  name: "list_data_stores",
  title: "List data stores",
  description:
    "The user's data stores (newest first), with how many live keys each holds. Sources and workflow steps read and write them through a `data_store` prop.",
  input: {
    limit: z.number().int().min(1).max(100).default(20).describe("items per page, 1 to 100 (default 20)"),
    cursor: z.string().min(1).max(400).optional().describe("`next_cursor` of the previous page"),
  },
  output: { data_stores: z.array(StoreOut), next_cursor: z.string().nullable(), total_count: z.number() },
  annotations: READ,
  run: async ({ limit, cursor }, { deps }) => {
    const page = await deps.client.listMyDataStores({
      limit,
      ...(cursor === undefined ? {} : { after: cursor }),
    });
    const more = page.data.length === limit && page.page_info.end_cursor !== null;
    return {
      data_stores: page.data,
      next_cursor: more ? page.page_info.end_cursor : null,
      total_count: page.page_info.total_count,
    };
  },
});

export const createDataStore = tool({
  name: "create_data_store",
  title: "Create a data store",
  description:
    "Creates an empty data store: a key/value store (JSON values, optional TTL) that the user's code can share across runs.",
  input: { name: z.string().min(1).max(DATA_STORE_LIMITS.nameLength).describe("its name") },
  output: { data_store: StoreOut },
  annotations: CREATE,
  run: async ({ name }, { deps }) => ({ data_store: await deps.client.createDataStore(name) }),
});

export const getRecord = tool({
  name: "get_record",
  title: "Get a data store record",
  description: "A record's value and expiry. A key that is absent or expired is not found.",
  input: { store_id: StoreId, key: Key },
  output: { record: RecordOut },
  annotations: READ,
  run: async ({ store_id, key }, { deps }) => ({
    record: await deps.client.getDataStoreRecord(store_id, key),
  }),
});

export const setRecord = tool({
  name: "set_record",
  title: "Set a data store record",
  description: `Creates or replaces a record. The value is any JSON (at most ${DATA_STORE_LIMITS.valueBytes} bytes); with ttl_seconds it expires that long after, without it never. A store holds at most 100,000 keys unless the server says otherwise.`,
  input: {
    store_id: StoreId,
    key: Key,
    value: z
      .unknown()
      .refine(
        (v) => v !== undefined && "text" in dataStoreValueText(v),
        `any JSON, at most ${DATA_STORE_LIMITS.valueBytes} bytes`,
      )
      .describe("the value: any JSON"),
    ttl_seconds: z
      .number()
      .int()
      .min(1)
      .max(DATA_STORE_LIMITS.ttlSeconds)
      .optional()
      .describe("expire it this many seconds from now"),
  },
  output: { record: RecordOut },
  annotations: CHANGE,
  run: async ({ store_id, key, value, ttl_seconds }, { deps }) => ({
    record: await deps.client.putDataStoreRecord(store_id, key, {
      value,
      ...(ttl_seconds === undefined ? {} : { ttl_seconds }),
    }),
  }),
});

export const deleteRecord = tool({
  name: "delete_record",
  title: "Delete a data store record",
  description: "Deletes one record. It cannot be recovered.",
  input: { store_id: StoreId, key: Key },
  output: { deleted: z.literal(true), key: z.string() },
  annotations: DESTROY,
  run: async ({ store_id, key }, { deps }) => {
    await deps.client.deleteDataStoreRecord(store_id, key);
    return { deleted: true as const, key };
  },
});

export const listRecords = tool({
  name: "list_records",
  title: "List data store records",
  description:
    "A store's live records in ascending key order, optionally only those whose key starts with `prefix`.",
  input: {
    store_id: StoreId,
    prefix: z.string().max(DATA_STORE_LIMITS.keyBytes).optional().describe("only keys starting with this"),
    limit: z.number().int().min(1).max(100).default(20).describe("items per page, 1 to 100 (default 20)"),
    cursor: z.string().min(1).max(400).optional().describe("`next_cursor` of the previous page"),
  },
  output: { records: z.array(RecordOut), next_cursor: z.string().nullable(), total_count: z.number() },
  annotations: READ,
  run: async ({ store_id, prefix, limit, cursor }, { deps }) => {
    const page = await deps.client.listDataStoreRecords(store_id, {
      limit,
      ...(prefix === undefined ? {} : { prefix }),
      ...(cursor === undefined ? {} : { after: cursor }),
    });
    const more = page.data.length === limit && page.page_info.end_cursor !== null;
    return {
      records: page.data,
      next_cursor: more ? page.page_info.end_cursor : null,
      total_count: page.page_info.total_count,
    };
  },
});

export const incrementRecord = tool({
  name: "increment_record",
  title: "Increment a data store record",
  description:
    "Adds `by` (default 1, may be negative or fractional) to the number at a key, atomically: an absent key counts from 0. A key holding something other than a number is refused.",
  input: {
    store_id: StoreId,
    key: Key,
    by: z.number().finite().default(1).describe("what to add (default 1)"),
  },
  output: { record: RecordOut },
  annotations: CREATE,
  run: async ({ store_id, key, by }, { deps }) => ({
    record: await deps.client.incrementDataStoreRecord(store_id, key, by),
  }),
});
