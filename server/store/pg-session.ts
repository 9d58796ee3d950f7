/**
 * A long-lived PostgreSQL session outside the pool, kept up until closed. LISTEN connections
 * (event bus, response relay) and the instance's presence session each hold one connection for
 * the life of the instance; when it drops they must notice, reconnect, and catch up. That
 * lifecycle lives here once, so each user says only what to do on a new connection and after a
 * loss.
 */
import type pg from "pg";

export interface PgSessionOptions {
  pool: pg.Pool;
  /** Names the session in logs ("event bus connection lost; reconnecting"). */
  label: string;
  /** PostgreSQL `application_name` of the session (visible in pg_stat_activity). */
  applicationName?: string;
  /** Pause before each reconnection attempt. */
  retryMs: number;
  /** Runs on every new connection before it counts as up (e.g. LISTEN). */
  setup?: (client: pg.Client) => Promise<void>;
  onNotification?: (message: pg.Notification) => void;
  /** Called each time an established connection is lost. */
  onLost?: () => void;
  /** Called after every successful reconnection (not after the first connection). */
  onReconnected?: () => void;
  log: { warn(obj: unknown, msg: string): void };
}

export class PgSession {
  private client: pg.Client | undefined;
  private closed = false;

  private constructor(private readonly o: PgSessionOptions) {}

  /** Opens the session; rejects when the first connection fails (the caller cannot start). */
  static async open(o: PgSessionOptions): Promise<PgSession> {
    const session = new PgSession(o);
    await session.connect(false);
    return session;
  }

  /** Whether the session is connected now (a notification sent now will come back). */
  get connected(): boolean {
    return this.client !== undefined;
  }

  /** The server process id of the current connection (pg_stat_activity.pid), if connected. */
  get backendPid(): number | undefined {
    return (this.client as (pg.Client & { processID?: number }) | undefined)?.processID;
  }

  /** A query on this session's connection; rejects when it is not connected now. */
  async query(text: string, values?: unknown[]): Promise<pg.QueryResult> {
    if (!this.client) throw new Error(`${this.o.label} session is not connected`);
    return this.client.query(text, values);
  }

  private async connect(isReconnect: boolean): Promise<void> {
    const config = { ...this.o.pool.options, application_name: this.o.applicationName };
    // Imported here: only PostgreSQL servers load pg (see store/db.ts).
    const { default: pgModule } = await import("pg");
    const client = new pgModule.Client(config);
    if (this.o.onNotification) client.on("notification", this.o.onNotification);
    const lost = (err?: unknown) => {
      if (this.closed || this.client !== client) return;
      this.client = undefined;
      client.end().catch(() => undefined);
      this.o.onLost?.();
      this.retry(err);
    };
    client.on("error", lost);
    client.on("end", () => lost());
    try {
      await client.connect();
      await this.o.setup?.(client);
    } catch (err) {
      client.end().catch(() => undefined);
      throw err;
    }
    if (this.closed) {
      await client.end().catch(() => undefined);
      return;
    }
    this.client = client;
    if (isReconnect) this.o.onReconnected?.();
  }

  /** Connects again after `retryMs`, and again after each failure, until closed. */
  private retry(err: unknown): void {
    if (this.closed) return;
    this.o.log.warn({ err }, `${this.o.label} connection lost; reconnecting`);
    setTimeout(() => void this.connect(true).catch((e: unknown) => this.retry(e)), this.o.retryMs).unref();
  }

  async close(): Promise<void> {
    this.closed = true;
    const c = this.client;
    this.client = undefined;
    await c?.end().catch(() => undefined);
  }
}
