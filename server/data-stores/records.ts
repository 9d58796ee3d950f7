/**
 * The operations on a store's records that the API and code share. Each first finds the store
 * among the caller's own (another user's store is "not found", whoever asks). Writes that may
 * add a key count the store's keys under the store's lock (PostgreSQL; SQLite writes one at a
 * time), so the limit holds under concurrent writers; writes to a key that is there already are
 * one statement each and take no lock (increments from many runs at once).
 */
import {
  DATA_STORE_LIMITS,
  dataStoreKeyProblem,
  dataStoreValueText,
  ERROR_CODES,
} from "../../shared/resources/index.js";
import { InvalidRequestError, NotFoundError } from "../errors.js";
import type { Db } from "../store/db.js";
import type { CallKey } from "../store/repos/data-store-calls.js";
import type { DataStoreRecordsRepo, RecordRow } from "../store/repos/data-store-records.js";
import type { DataStoreRow, DataStoresRepo } from "../store/repos/data-stores.js";

export interface RecordValue {
  key: string;
  value: unknown;
  expires_at_ms: number | null;
}

const bad = (path: string, message: string) =>
  new InvalidRequestError(message, ERROR_CODES.validation, [{ path, message }]);

export function checkKey(key: unknown): string {
  const problem = dataStoreKeyProblem(key);
  if (problem) throw bad("key", problem);
  return key as string;
}

export function valueText(value: unknown): string {
  const out = dataStoreValueText(value);
  if ("problem" in out) throw bad("value", out.problem);
  return out.text;
}

/** Seconds from now as an expiry in epoch ms; null or undefined: never. */
export function expiryOf(ttlSeconds: number | null | undefined, nowMs: number): number | null {
  if (ttlSeconds === undefined || ttlSeconds === null) return null;
  if (
    typeof ttlSeconds !== "number" ||
    !Number.isInteger(ttlSeconds) ||
    ttlSeconds < 1 ||
    ttlSeconds > DATA_STORE_LIMITS.ttlSeconds
  )
    throw bad("ttl", `a TTL is a whole number of seconds from 1 to ${DATA_STORE_LIMITS.ttlSeconds}`);
  return nowMs + ttlSeconds * 1000;
}

export const present = (row: RecordRow): RecordValue => ({
  key: row.key,
  value: JSON.parse(row.value),
  expires_at_ms: row.expires_at_ms === null ? null : Number(row.expires_at_ms),
});

export class RecordOps {
  constructor(
    readonly stores: DataStoresRepo,
    readonly records: DataStoreRecordsRepo,
    private readonly maxKeys: number,
  ) {}

  /** The same operations with every statement in `trx` (data-stores/once.ts). */
  on(trx: Db): RecordOps {
    return new RecordOps(this.stores.on(trx), this.records.on(trx), this.maxKeys);
  }

  async ownStore(userId: string, storeId: string): Promise<DataStoreRow> {
    const row = typeof storeId === "string" ? await this.stores.findOwn(userId, storeId) : undefined;
    if (!row) throw new NotFoundError(`data store ${String(storeId)}`);
    return row;
  }

  async get(userId: string, storeId: string, key: string): Promise<RecordValue | undefined> {
    await this.ownStore(userId, storeId);
    const row = await this.records.get(storeId, checkKey(key), Date.now());
    return row && present(row);
  }

  /** Writes `key`; over the key limit (a new key), 400 and nothing changes. */
  async set(
    userId: string,
    storeId: string,
    key: string,
    value: unknown,
    ttlSeconds?: number | null,
  ): Promise<RecordValue> {
    checkKey(key);
    const now = Date.now();
    const row: RecordRow = { key, value: valueText(value), expires_at_ms: expiryOf(ttlSeconds, now) };
    await this.ownStore(userId, storeId);
    if (!(await this.records.replaceLive(storeId, row, now)))
      await this.adding(userId, storeId, key, now, (trx) => this.records.upsert(storeId, row, trx));
    return present(row);
  }

  /** Adds `by` to the number at `key` (absent: from 0); the record as it now is. */
  async increment(userId: string, storeId: string, key: string, by: number = 1): Promise<RecordValue> {
    checkKey(key);
    if (typeof by !== "number" || !Number.isFinite(by)) throw bad("by", "an increment is a finite number");
    const byText = JSON.stringify(by);
    const now = Date.now();
    // A number already there: one statement. Otherwise (or not the user's store) the way that
    // may add the key, under the store's lock, which finds the store among the user's first.
    let row = await this.records.incrementLive(userId, storeId, key, byText, now);
    row ??= await this.adding(userId, storeId, key, now, (trx) =>
      this.records.incrementOrInsert(storeId, key, byText, now, trx),
    );
    if (!row) {
      const there = await this.records.get(storeId, key, now);
      const what = there ? `holds ${describe(JSON.parse(there.value))}` : "changed while it was incremented";
      throw bad("key", `cannot increment "${key}": it ${what}, not a number`);
    }
    return present(row);
  }

  /**
   * A run's increment of a number there already with its call key recorded, in one statement
   * (PostgreSQL: data-stores/once.ts); undefined when that cannot be (absent, not a number, not
   * the user's store, SQLite): the caller takes the way of every write.
   */
  async incrementRecorded(
    userId: string,
    storeId: string,
    key: string,
    by: number,
    call: CallKey,
  ): Promise<RecordValue | undefined> {
    if (typeof key !== "string" || dataStoreKeyProblem(key) || typeof by !== "number" || !Number.isFinite(by))
      return undefined;
    const row = await this.records.incrementLiveRecorded(
      userId,
      storeId,
      key,
      JSON.stringify(by),
      Date.now(),
      call,
    );
    return row && present(row);
  }

  /**
   * Sets `key` to `value` only if it holds `expected` (deeply equal JSON), or, with `expected`
   * undefined, only if it is absent; whether it did. The write names the text it compared, so
   * a change in between makes it compare again.
   */
  async compareAndSet(
    userId: string,
    storeId: string,
    key: string,
    expected: unknown,
    value: unknown,
  ): Promise<boolean> {
    checkKey(key);
    const text = valueText(value);
    await this.ownStore(userId, storeId);
    for (let attempt = 0; attempt < 100; attempt++) {
      const now = Date.now();
      if (expected === undefined) {
        const row = { key, value: text, expires_at_ms: null };
        return (
          (await this.adding(userId, storeId, key, now, (trx) =>
            this.records.insertIfAbsent(storeId, row, now, trx),
          )) === true
        );
      }
      const there = await this.records.get(storeId, key, now);
      if (!there || !sameJson(JSON.parse(there.value), expected)) return false;
      if (await this.records.replaceIf(storeId, key, there.value, text, now)) return true;
    }
    throw new Error(`compareAndSet("${key}"): the key kept changing; try again`);
  }

  /** A live key's TTL in seconds from now (null: never expires); whether the key was there. */
  async setTtl(userId: string, storeId: string, key: string, ttlSeconds: number | null): Promise<boolean> {
    checkKey(key);
    const now = Date.now();
    const expiry = expiryOf(ttlSeconds, now);
    await this.ownStore(userId, storeId);
    return this.records.setExpiry(storeId, key, expiry, now);
  }

  async delete(userId: string, storeId: string, key: string): Promise<boolean> {
    checkKey(key);
    await this.ownStore(userId, storeId);
    return this.records.delete(storeId, key, Date.now());
  }

  async clear(userId: string, storeId: string): Promise<void> {
    await this.ownStore(userId, storeId);
    await this.records.clear(storeId);
  }

  /**
   * A write that may add `key`: under the store's lock, refused when the store holds its limit
   * of other live keys. The store deleted meanwhile: not found.
   */
  private adding<T>(
    userId: string,
    storeId: string,
    key: string,
    now: number,
    write: (trx: Db) => Promise<T>,
  ): Promise<T> {
    return this.stores.transaction(async (trx) => {
      if (!(await this.stores.lockOwn(userId, storeId, trx)))
        throw new NotFoundError(`data store ${storeId}`);
      if (
        !(await this.records.get(storeId, key, now, trx)) &&
        (await this.records.countOthers(storeId, key, now, trx)) >= this.maxKeys
      )
        throw bad("key", `a data store holds at most ${this.maxKeys} keys: delete some first`);
      return write(trx);
    });
  }
}

function describe(v: unknown): string {
  if (v === null) return "null";
  if (Array.isArray(v)) return "an array";
  if (typeof v === "string") return "a string";
  if (typeof v === "boolean") return "a boolean";
  return `an ${typeof v}`;
}

/** JSON equality: same types, same array items in order, same object members in any order. */
export function sameJson(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== typeof b || a === null || b === null || typeof a !== "object") {
    // undefined members and non-JSON values compare as JSON would write them.
    return JSON.stringify(a) === JSON.stringify(b) && a !== undefined && b !== undefined;
  }
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  const ao = a as Record<string, unknown>;
  const bo = b as Record<string, unknown>;
  const ak = Object.keys(ao).filter((k) => ao[k] !== undefined);
  const bk = Object.keys(bo).filter((k) => bo[k] !== undefined);
  if (ak.length !== bk.length) return false;
  return ak.every((k) => Object.prototype.hasOwnProperty.call(bo, k) && sameJson(ao[k], bo[k]));
}
