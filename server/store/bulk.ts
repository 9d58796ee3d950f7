/**
 * Statements whose SQL depends on how many rows they touch (multi-row inserts, `IN (...)`
 * deletes), built with Kysely once per dialect and row count instead of on every call.
 *
 * Why: a batch of a busy source stores its events in one multi-row insert and deletes its jobs
 * with one `IN` list; building those with Kysely (parsing the values, freezing the node tree,
 * compiling) cost about as much CPU as SQLite running them (profiled while a backlog drained:
 * the insert's parse and compile were 5 % of the server's busy time). The fixed-shape queries
 * of the hot paths use prepared.ts; these are the ones whose shape varies with a count.
 */
import { sql, type Kysely, type Transaction } from "kysely";
import { executeCompiled } from "./sqlite-direct.js";
import type { Database } from "./schema.js";

type Exec = Kysely<Database> | Transaction<Database>;

/** Compiled SQL by dialect adapter (a transaction shares its database's), then by row count. */
function sqlCache(): (db: Exec, n: number, build: (n: number) => string) => string {
  const byAdapter = new WeakMap<object, Map<number, string>>();
  return (db, n, build) => {
    const adapter = db.getExecutor().adapter;
    let byCount = byAdapter.get(adapter);
    if (!byCount) byAdapter.set(adapter, (byCount = new Map()));
    let text = byCount.get(n);
    if (text === undefined) byCount.set(n, (text = build(n)));
    return text;
  };
}

/**
 * `INSERT INTO table (columns) VALUES (...), (...)` for any number of rows; the parameters are
 * the rows' values, row after row, in `columns` order (checked when a shape is first built).
 */
export function bulkInsert<T extends keyof Database & string, C extends keyof Database[T] & string>(
  table: T,
  columns: readonly C[],
): (db: Exec, rows: ReadonlyArray<Pick<Database[T], C>>) => Promise<void> {
  const cached = sqlCache();
  return async (db, rows) => {
    if (rows.length === 0) return;
    const text = cached(db, rows.length, (n) => {
      const marks = Array.from({ length: n }, (_, i) => Object.fromEntries(columns.map((c) => [c, `${i}:${c}`])));
      // Kysely's own types cannot follow a generic table here; the marks stand for any row.
      const compiled = (db as unknown as Kysely<Record<string, Record<string, unknown>>>).insertInto(table).values(marks).compile();
      const expected = marks.flatMap((m) => columns.map((c) => m[c]));
      if (compiled.parameters.length !== expected.length || compiled.parameters.some((p, i) => p !== expected[i])) {
        throw new Error(`${table}: unexpected parameter order in a multi-row insert`);
      }
      return compiled.sql;
    });
    const parameters: unknown[] = [];
    for (const row of rows) for (const c of columns) parameters.push(row[c]);
    await executeCompiled(db, text, parameters);
  };
}

/** `DELETE FROM table WHERE column IN (...)` for any number of keys; resolves with the rows deleted. */
export function bulkDelete<T extends keyof Database & string>(table: T, column: keyof Database[T] & string): (db: Exec, keys: readonly string[]) => Promise<number> {
  const cached = sqlCache();
  return async (db, keys) => {
    if (keys.length === 0) return 0;
    const text = cached(db, keys.length, (n) => {
      const marks = Array.from({ length: n }, (_, i) => `key:${i}`);
      const compiled = sql`delete from ${sql.table(table)} where ${sql.ref(column)} in (${sql.join(marks)})`.compile(db);
      if (compiled.parameters.length !== n || compiled.parameters.some((p, i) => p !== marks[i])) {
        throw new Error(`${table}: unexpected parameters in a bulk delete`);
      }
      return compiled.sql;
    });
    const result = await executeCompiled(db, text, [...keys]);
    return Number(result.numAffectedRows ?? 0n);
  };
}
