/**
 * Keyset pagination shared by every resource list: newest first by (created_ms DESC, id DESC).
 * Works for any table with `id` and `created_ms` columns. Cursors are item ids (the HTTP layer
 * encodes them); `after` = items older than that item, `before` = items newer than it.
 */
import type { ExpressionBuilder, Kysely } from "kysely";
import type { Db } from "../db.js";

export interface PageRequest {
  limit: number;
  /** Item id: return the items that follow it (older). */
  after?: string | undefined;
  /** Item id: return the items that precede it (newer). */
  before?: string | undefined;
}

export interface PageRows<Row> {
  rows: Row[];
  totalCount: number;
}

/** The cursor's item is not in this list (unknown, deleted, or someone else's). */
export class CursorNotFoundError extends Error {
  constructor(readonly cursorId: string) {
    super(`cursor does not point at an item of this list`);
  }
}

/** Column equals a value, or (`{ not }`) differs from it. */
type Scope = Record<string, string | number | { not: string | number }>;
// Pagination is generic over tables; Kysely's per-table typing cannot follow a table name
// given at run time, so the query is built untyped here and the row type is asserted once.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type AnyDb = Kysely<any>;
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type AnyEb = ExpressionBuilder<any, any>;

export async function pageByCreation<Row>(
  db: Db,
  table: string,
  scope: Scope,
  req: PageRequest,
): Promise<PageRows<Row>> {
  const adb = db as unknown as AnyDb;
  const scoped = (eb: AnyEb) =>
    eb.and(Object.entries(scope).map(([k, v]) => (typeof v === "object" ? eb(k, "!=", v.not) : eb(k, "=", v))));

  const anchor = async (id: string) => {
    const row = (await adb
      .selectFrom(table)
      .select(["id", "created_ms"])
      .where((eb) => eb.and([scoped(eb), eb("id", "=", id)]))
      .executeTakeFirst()) as { id: string; created_ms: number } | undefined;
    if (!row) throw new CursorNotFoundError(id);
    return row;
  };
  const older = (eb: AnyEb, a: { id: string; created_ms: number }) =>
    eb.or([
      eb("created_ms", "<", a.created_ms),
      eb.and([eb("created_ms", "=", a.created_ms), eb("id", "<", a.id)]),
    ]);
  const newer = (eb: AnyEb, a: { id: string; created_ms: number }) =>
    eb.or([
      eb("created_ms", ">", a.created_ms),
      eb.and([eb("created_ms", "=", a.created_ms), eb("id", ">", a.id)]),
    ]);

  const afterRow = req.after ? await anchor(req.after) : undefined;
  const beforeRow = req.before ? await anchor(req.before) : undefined;

  let q = adb
    .selectFrom(table)
    .selectAll()
    .where((eb) => {
      const conds = [scoped(eb)];
      if (afterRow) conds.push(older(eb, afterRow));
      if (beforeRow) conds.push(newer(eb, beforeRow));
      return eb.and(conds);
    });
  // `before` alone reads upward from the anchor (the page just above it), then flips back.
  const upward = beforeRow !== undefined && afterRow === undefined;
  q = upward
    ? q.orderBy("created_ms", "asc").orderBy("id", "asc")
    : q.orderBy("created_ms", "desc").orderBy("id", "desc");
  const rows = (await q.limit(req.limit).execute()) as Row[];
  if (upward) rows.reverse();

  const count = (await adb
    .selectFrom(table)
    .select((eb) => eb.fn.countAll().as("n"))
    .where(scoped)
    .executeTakeFirstOrThrow()) as { n: number | string };
  return { rows, totalCount: Number(count.n) };
}
