/**
 * Data stores (decisions.md "Workflow triggers, environment variables and data stores"): a
 * user's named stores, answered with their live keys and size, and their records over the API.
 * Code reaches the same records through code-calls.ts; both go through RecordOps.
 */
import { newId } from "../../shared/ids.js";
import {
  decodeKeyCursor,
  encodeKeyCursor,
  ERROR_CODES,
  PAGE_LIMIT,
  type DataStore,
  type DataStoreRecord,
  type Page,
  type RecordListQuery,
} from "../../shared/resources/index.js";
import { ConflictError, InvalidRequestError, NotFoundError } from "../errors.js";
import { nextCreatedMs, nowSeconds } from "../store/repos/clock.js";
import type { DataStoreRow } from "../store/repos/data-stores.js";
import type { PageRequest, PageRows } from "../store/repos/paging.js";
import { present as presentRecord, type RecordOps } from "./records.js";

export class DataStoreService {
  constructor(readonly ops: RecordOps) {}

  private get stores() {
    return this.ops.stores;
  }

  async create(userId: string, name: string): Promise<DataStore> {
    const now = nowSeconds();
    const row: DataStoreRow = {
      id: newId("dataStore"),
      user_id: userId,
      name,
      created_ms: nextCreatedMs(),
      created_at: now,
      updated_at: now,
    };
    await this.stores.create(row);
    return present(row, { keys: 0, bytes: 0 });
  }

  async list(userId: string, req: PageRequest): Promise<PageRows<DataStore>> {
    const { rows, totalCount } = await this.stores.page(userId, req);
    return { rows: await this.withSizes(rows), totalCount };
  }

  /** Every store of the user (for finding one by name). */
  async all(userId: string): Promise<DataStore[]> {
    return this.withSizes(await this.stores.listOwn(userId));
  }

  async get(userId: string, id: string): Promise<DataStore> {
    const [store] = await this.withSizes([await this.ops.ownStore(userId, id)]);
    return store!;
  }

  async rename(userId: string, id: string, name: string): Promise<DataStore> {
    if (!(await this.stores.rename(userId, id, name, nowSeconds())))
      throw new NotFoundError(`data store ${id}`);
    return this.get(userId, id);
  }

  /** Refused with 409 `data_store_in_use` while a source's props or a workflow's steps name it. */
  async delete(userId: string, id: string): Promise<void> {
    await this.stores.transaction(async (trx) => {
      if (!(await this.stores.lockOwn(userId, id, trx))) throw new NotFoundError(`data store ${id}`);
      const holders = await this.stores.holders(userId, id, trx);
      if (holders.length > 0) {
        const details = holders.map((h) => ({
          path: `used_by.${h.id}`,
          message: `${h.kind} "${h.name}" (${h.id})`,
        }));
        throw new ConflictError(
          `data store ${id} is in use by ${details.map((d) => d.message).join("; ")}: change their props first`,
          ERROR_CODES.dataStoreInUse,
          details,
        );
      }
      await this.stores.delete(id, trx);
    });
  }

  async records(userId: string, id: string, q: RecordListQuery): Promise<Page<DataStoreRecord>> {
    await this.ops.ownStore(userId, id);
    const page = await this.ops.records.page(
      id,
      {
        limit: Number(q.limit ?? PAGE_LIMIT.default),
        prefix: q.prefix,
        after: cursor("after", q.after),
        before: cursor("before", q.before),
      },
      Date.now(),
    );
    const first = page.rows[0];
    const last = page.rows[page.rows.length - 1];
    return {
      page_info: {
        total_count: page.total,
        count: page.rows.length,
        start_cursor: first ? encodeKeyCursor(first.key) : null,
        end_cursor: last ? encodeKeyCursor(last.key) : null,
      },
      data: page.rows.map(presentRecord),
    };
  }

  async record(userId: string, id: string, key: string): Promise<DataStoreRecord> {
    const rec = await this.ops.get(userId, id, key);
    if (!rec) throw new NotFoundError(`record ${JSON.stringify(key)}`);
    return rec;
  }

  async put(
    userId: string,
    id: string,
    key: string,
    value: unknown,
    ttlSeconds?: number | null,
  ): Promise<DataStoreRecord> {
    const rec = await this.ops.set(userId, id, key, value, ttlSeconds);
    await this.stores.touch(id, nowSeconds());
    return rec;
  }

  async deleteRecord(userId: string, id: string, key: string): Promise<void> {
    if (!(await this.ops.delete(userId, id, key))) throw new NotFoundError(`record ${JSON.stringify(key)}`);
    await this.stores.touch(id, nowSeconds());
  }

  async increment(userId: string, id: string, key: string, by?: number): Promise<DataStoreRecord> {
    return this.ops.increment(userId, id, key, by ?? 1);
  }

  private async withSizes(rows: DataStoreRow[]): Promise<DataStore[]> {
    const sizes = await this.stores.sizes(
      rows.map((r) => r.id),
      Date.now(),
    );
    return rows.map((r) => present(r, sizes.get(r.id) ?? { keys: 0, bytes: 0 }));
  }
}

function cursor(name: string, value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  const key = decodeKeyCursor(value);
  if (key === undefined)
    throw new InvalidRequestError(`${name} is not a valid cursor`, ERROR_CODES.badCursor);
  return key;
}

function present(row: DataStoreRow, size: { keys: number; bytes: number }): DataStore {
  return {
    id: row.id,
    name: row.name,
    keys: size.keys,
    bytes: size.bytes,
    created_at: Number(row.created_at),
    updated_at: Number(row.updated_at),
  };
}
