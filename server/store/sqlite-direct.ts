/**
 * The embedded database's hot statements run on better-sqlite3 directly, past Kysely's executor,
 * wherever that changes nothing but the cost.
 *
 * Why: better-sqlite3 answers synchronously, and most of what a statement costs through Kysely is
 * Kysely's own machinery around it (a connection provider, several awaits, a frozen compiled
 * query, the result's transform). Measured on this project's 8-statement write transaction: 51
 * µs through Kysely, 28 µs with the statements run directly (docs/benchmarks.md, 26 Nov); the transaction of a run's results sits on every event's way to its streams.
 *
 * What keeps it safe: SQLite here has one connection, and Kysely's driver lends it to one user at
 * a time (a query, or a transaction from BEGIN to COMMIT). The driver made here also counts who
 * holds it. A direct statement starts and ends within one synchronous call, so it can never
 * interleave with anything; it runs directly only
 * - on the database itself, when nobody holds the connection: exactly as Kysely would have run
 *   it, without the detour;
 * - on the connection of a write transaction begun here (`transaction`), whose holder is the one
 *   calling.
 * Anything else (another Kysely instance, a Kysely transaction, the connection lent out) goes
 * through Kysely as before. Only queries whose SQL is already compiled come this way (prepared.ts,
 * bulk.ts); the statements are the cached ones Kysely itself uses (statement-cache.ts).
 *
 * A write transaction begun here while nobody holds or waits for Kysely's connection does not
 * borrow it either (borrowing took 25 to 70 µs of promise hops on every event's way to its
 * streams): it marks the connection as its own, and the driver holds back every Kysely user that
 * asks for it meanwhile until the COMMIT (or ROLLBACK). Its unit's other queries run on a Kysely
 * instance of its own over the same statements.
 */
import type { Database as SqliteDb, Statement } from "better-sqlite3";
import {
  CompiledQuery,
  Kysely,
  SqliteDialect,
  type DatabaseConnection,
  type Dialect,
  type Driver,
  type QueryResult,
  type SqliteDatabase,
} from "kysely";
import type { Database } from "./schema.js";

type Db = Kysely<Database>;

/** Kysely instances whose queries may run directly: the database (when idle) and open write transactions. */
const directOf = new WeakMap<object, { direct: SqliteDirect; holder: boolean }>();

export class SqliteDirect {
  /** Users of Kysely's connection right now: a query running, a transaction open, one asking for it. */
  private holders = 0;
  /** A write transaction of this class's own, holding the connection outside Kysely (settles at its end). */
  private own: Promise<void> | undefined;
  /** The Kysely instance that transaction's unit gets: the same statements, no shared mutex. */
  private readonly ownDb: Db;
  private readonly begin: Statement;
  private readonly commit: Statement;
  private readonly rollback: Statement;

  constructor(
    private readonly sqlite: SqliteDb,
    /** The statement cache Kysely's driver prepares through too. */
    private readonly statements: SqliteDatabase,
  ) {
    this.begin = sqlite.prepare("begin");
    this.commit = sqlite.prepare("commit");
    this.rollback = sqlite.prepare("rollback");
    this.ownDb = new Kysely<Database>({ dialect: new SqliteDialect({ database: statements }) });
  }

  /** Kysely's SQLite dialect over the same statements, with a driver that counts its connection's users. */
  dialect(): Dialect {
    const counting = (inner: Driver) => new CountingDriver(inner, this);
    return new (class extends SqliteDialect {
      override createDriver(): Driver {
        return counting(super.createDriver());
      }
    })({ database: this.statements });
  }

  /** The Kysely instance over this dialect (`register`). */
  private db: Db | undefined;

  /** Lets `db` (the Kysely instance over this dialect) run compiled queries directly while the connection is free. */
  register(db: Db): void {
    this.db = db;
    directOf.set(db, { direct: this, holder: false });
  }

  /**
   * A write transaction on the connection, its BEGIN and COMMIT run directly; `unit` gets the
   * Kysely instance bound to it, on which compiled queries run directly too. A unit that throws
   * (or a COMMIT that fails) rolls it all back.
   */
  transaction<T>(unit: (conn: Db) => Promise<T>): Promise<T> {
    if (!this.db) return Promise.reject(new Error("sqlite-direct: no database registered"));
    if (this.idle) return this.ownTransaction(unit);
    return this.db.connection().execute((conn) => this.runIn(conn, unit));
  }

  /** A transaction on the connection while nobody else holds or waits for it (see the file comment). */
  private async ownTransaction<T>(unit: (conn: Db) => Promise<T>): Promise<T> {
    let end!: () => void;
    this.own = new Promise<void>((resolve) => (end = resolve));
    try {
      return await this.runIn(this.ownDb, unit);
    } finally {
      this.own = undefined;
      end();
    }
  }

  /** BEGIN, the unit on `conn` (its compiled statements direct), COMMIT; ROLLBACK if anything throws. */
  private async runIn<T>(conn: Db, unit: (conn: Db) => Promise<T>): Promise<T> {
    this.begin.run();
    directOf.set(conn, { direct: this, holder: true });
    try {
      const out = await unit(conn);
      this.commit.run();
      return out;
    } catch (err) {
      if (this.sqlite.inTransaction) this.rollback.run();
      throw err;
    } finally {
      directOf.delete(conn);
    }
  }

  /** @internal the driver's wait: a Kysely user asking for the connection during an own transaction gets it after. */
  async untilOwnEnds(): Promise<void> {
    while (this.own) await this.own;
  }

  /** @internal the driver's count */
  acquired(): void {
    this.holders++;
  }

  /** @internal the driver's count */
  released(): void {
    this.holders--;
  }

  run(sql: string, parameters: unknown[]): QueryResult<unknown> {
    const stmt = this.statements.prepare(sql) as unknown as Statement;
    if (stmt.reader) return { rows: stmt.all(parameters) };
    const { changes, lastInsertRowid } = stmt.run(parameters);
    return { rows: [], numAffectedRows: BigInt(changes), insertId: BigInt(lastInsertRowid) };
  }

  get idle(): boolean {
    return this.holders === 0 && this.own === undefined;
  }
}

/**
 * Runs compiled SQL on `db`: directly where `db` allows it now (see the file comment), else
 * through Kysely's executor. Either way the result has Kysely's shape.
 */
export function executeCompiled<R>(db: Db, sql: string, parameters: unknown[]): Promise<QueryResult<R>> {
  const entry = directOf.get(db);
  if (entry && (entry.holder || entry.direct.idle)) {
    try {
      return Promise.resolve(entry.direct.run(sql, parameters) as QueryResult<R>);
    } catch (err) {
      return Promise.reject(err);
    }
  }
  return db.executeQuery(CompiledQuery.raw(sql, parameters) as CompiledQuery<R>);
}

/** Kysely's SQLite driver, counting who holds its one connection. */
class CountingDriver implements Driver {
  constructor(
    private readonly inner: Driver,
    private readonly direct: SqliteDirect,
  ) {}

  init(): Promise<void> {
    return this.inner.init();
  }

  async acquireConnection(): Promise<DatabaseConnection> {
    // Counted from the ask, not from the answer: a transaction of the direct path that begins
    // while this waits for the connection would otherwise take it in between.
    this.direct.acquired();
    try {
      await this.direct.untilOwnEnds();
      return await this.inner.acquireConnection();
    } catch (err) {
      this.direct.released();
      throw err;
    }
  }

  async releaseConnection(connection: DatabaseConnection): Promise<void> {
    this.direct.released();
    await this.inner.releaseConnection(connection);
  }

  beginTransaction(...args: Parameters<Driver["beginTransaction"]>): Promise<void> {
    return this.inner.beginTransaction(...args);
  }

  commitTransaction(connection: DatabaseConnection): Promise<void> {
    return this.inner.commitTransaction(connection);
  }

  rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    return this.inner.rollbackTransaction(connection);
  }

  savepoint(...args: Parameters<NonNullable<Driver["savepoint"]>>): Promise<void> {
    return this.inner.savepoint!(...args);
  }

  rollbackToSavepoint(...args: Parameters<NonNullable<Driver["rollbackToSavepoint"]>>): Promise<void> {
    return this.inner.rollbackToSavepoint!(...args);
  }

  releaseSavepoint(...args: Parameters<NonNullable<Driver["releaseSavepoint"]>>): Promise<void> {
    return this.inner.releaseSavepoint!(...args);
  }

  destroy(): Promise<void> {
    return this.inner.destroy();
  }
}
