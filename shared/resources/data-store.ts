/**
 * Data stores (extension, decisions.md "Workflow triggers, environment variables and data
 * stores"): a user's named key/value stores, read and written by their sources and workflow
 * steps (a `data_store` prop) and over the API. Values are JSON; a record may expire (TTL).
 */
import * as z from "../zod.js";
import { UnixSeconds } from "./common.js";
import { utf8Bytes } from "./env.js";
import { PageQuery } from "./page.js";

export const DATA_STORE_LIMITS = {
  /** Longest key, in bytes of UTF-8. */
  keyBytes: 256,
  /** Longest value, as JSON, in bytes of UTF-8. */
  valueBytes: 64 * 1024,
  /** Most live keys in one store unless the server says otherwise (HEADWATER_DATA_STORE_MAX_KEYS). */
  defaultMaxKeys: 100_000,
  /** Longest store name, in characters. */
  nameLength: 200,
  /** Longest TTL: ten years, in seconds. */
  ttlSeconds: 10 * 365 * 24 * 3600,
} as const;

/** Why `key` is not a record's key; undefined when it is one. */
export function dataStoreKeyProblem(key: unknown): string | undefined {
  if (typeof key !== "string") return "a key is a string";
  if (key === "") return "a key is at least 1 character";
  if (utf8Bytes(key) > DATA_STORE_LIMITS.keyBytes)
    return `a key holds at most ${DATA_STORE_LIMITS.keyBytes} bytes (this one has ${utf8Bytes(key)})`;
  return undefined;
}

/** A value's JSON text, or why it cannot be stored. */
export function dataStoreValueText(value: unknown): { text: string } | { problem: string } {
  let text: string | undefined;
  try {
    text = JSON.stringify(value);
  } catch (err) {
    return { problem: `the value is not JSON: ${(err as Error).message}` };
  }
  if (text === undefined) return { problem: "the value is not JSON (undefined, a function or a symbol)" };
  const bytes = utf8Bytes(text);
  if (bytes > DATA_STORE_LIMITS.valueBytes)
    return {
      problem: `a value holds at most ${DATA_STORE_LIMITS.valueBytes} bytes of JSON (this one has ${bytes})`,
    };
  return { text };
}

const StoreName = z.string().check(
  z.minLength(1, "a name is at least 1 character"),
  z.maxLength(DATA_STORE_LIMITS.nameLength, `a name is at most ${DATA_STORE_LIMITS.nameLength} characters`),
  z.refine((s) => s.trim() !== "", { message: "a name is not only spaces" }),
);

export const DataStore = z.looseObject({
  id: z.string(),
  name: z.string(),
  /** Live (unexpired) records. */
  keys: z.number().check(z.int(), z.nonnegative()),
  /** Characters of their keys and JSON values. */
  bytes: z.number().check(z.int(), z.nonnegative()),
  created_at: UnixSeconds,
  updated_at: UnixSeconds,
});
export type DataStore = z.infer<typeof DataStore>;

export const CreateDataStoreBody = z.object({ name: StoreName });
export type CreateDataStoreBody = z.infer<typeof CreateDataStoreBody>;

export const UpdateDataStoreBody = z.object({ name: StoreName });
export type UpdateDataStoreBody = z.infer<typeof UpdateDataStoreBody>;

export const DataStoreKey = z.string().check(
  z.refine((k) => dataStoreKeyProblem(k) === undefined, {
    message: `a key is 1 to ${DATA_STORE_LIMITS.keyBytes} bytes`,
  }),
);

export const DataStoreRecord = z.object({
  key: z.string(),
  value: z.unknown(),
  /** When it expires (epoch ms); null: never. */
  expires_at_ms: z.nullable(z.number()),
});
export type DataStoreRecord = z.infer<typeof DataStoreRecord>;

/** `/data_stores/{id}/records/{key}` (the key URL-encoded). */
export const RecordParams = z.object({
  id: z.string().check(z.minLength(1), z.maxLength(200)),
  key: DataStoreKey,
});

const Ttl = z
  .number()
  .check(
    z.int("ttl_seconds is a whole number of seconds"),
    z.gte(1, "ttl_seconds is at least 1"),
    z.lte(DATA_STORE_LIMITS.ttlSeconds, `ttl_seconds is at most ${DATA_STORE_LIMITS.ttlSeconds}`),
  );

/** `PUT .../records/{key}`: the value replaces the old one; without `ttl_seconds` it never expires. */
export const PutRecordBody = z.object({
  value: z.unknown().check(
    z.refine((v) => v !== undefined, { message: "value is required (any JSON)" }),
    z.refine((v) => v === undefined || "text" in dataStoreValueText(v), {
      message: `a value holds at most ${DATA_STORE_LIMITS.valueBytes} bytes of JSON`,
    }),
  ),
  ttl_seconds: z.optional(z.nullable(Ttl)),
});
export type PutRecordBody = z.infer<typeof PutRecordBody>;

/** `POST .../records/{key}/increment`: `by` defaults to 1. */
export const IncrementRecordBody = z.object({
  by: z.optional(z.number().check(z.refine((n) => Number.isFinite(n), { message: "by is a finite number" }))),
});
export type IncrementRecordBody = z.infer<typeof IncrementRecordBody>;

/** `GET /data_stores/{id}/records`: a page in ascending key order, optionally of keys with a prefix. */
export const RecordListQuery = z.extend(PageQuery, {
  prefix: z.optional(
    z
      .string()
      .check(
        z.maxLength(
          DATA_STORE_LIMITS.keyBytes,
          `a prefix is at most ${DATA_STORE_LIMITS.keyBytes} characters`,
        ),
      ),
  ),
});
export type RecordListQuery = z.input<typeof RecordListQuery>;

/** Record list cursors: the key, base64url-encoded, after `k.`. */
export function encodeKeyCursor(key: string): string {
  const bytes = new TextEncoder().encode(key);
  let bin = "";
  for (const b of bytes) bin += String.fromCharCode(b);
  return "k." + btoa(bin).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

export function decodeKeyCursor(cursor: string): string | undefined {
  const m = /^k\.([A-Za-z0-9_-]+)$/.exec(cursor);
  if (!m) return undefined;
  try {
    const b64 = m[1]!.replace(/-/g, "+").replace(/_/g, "/");
    const bin = atob(b64 + "=".repeat((4 - (b64.length % 4)) % 4));
    return new TextDecoder("utf-8", { fatal: true }).decode(Uint8Array.from(bin, (c) => c.charCodeAt(0)));
  } catch {
    return undefined;
  }
}
