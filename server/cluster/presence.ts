/**
 * Instance presence and lease takeover on PostgreSQL. The queue's leases (runtime/queue.ts)
 * expire on their own after `leaseMs` (30 s); this makes a dead instance's work move sooner.
 *
 * - `Presence` holds one connection named `headwater:<instance id>` (store/repos/cluster.ts) for
 *   the life of the instance. A killed process's sockets close and PostgreSQL drops the session.
 * - Every `checkMs`, any instance looks for lease owners with no such session. An owner absent
 *   at ABSENT_CHECKS checks in a row (so an instance reconnecting after a database restart is not
 *   mistaken for a dead one) has its leases freed, and its targets' jobs (timer ticks,
 *   acknowledged requests) run on the others.
 *
 * A machine that vanishes without closing its sockets is seen only when PostgreSQL's TCP
 * keepalive gives up; its leases then still expire after `leaseMs`.
 */
import type pg from "pg";
import type { Db } from "../store/db.js";
import { PgSession } from "../store/pg-session.js";
import { absentLeaseOwners, PRESENCE_PREFIX, releaseLeasesOf } from "../store/repos/cluster.js";

/** Consecutive checks an owner must be absent at before its leases are freed. */
const ABSENT_CHECKS = 3;

export interface PresenceOptions {
  pool: pg.Pool;
  db: Db;
  /** The id this instance's queue writes as lease owner. */
  instanceId: string;
  checkMs?: number;
  log: { warn(obj: unknown, msg: string): void; info(obj: unknown, msg: string): void };
}

export class Presence {
  private session: PgSession | undefined;
  private closed = false;
  private timer: NodeJS.Timeout | undefined;
  private checking = false;
  /** Owners found absent, and at how many checks in a row. */
  private absent = new Map<string, number>();

  private constructor(private readonly o: PresenceOptions) {}

  /** Connects the presence session and starts checking for dead instances. */
  static async start(o: PresenceOptions): Promise<Presence> {
    const p = new Presence(o);
    await p.connect();
    p.timer = setInterval(() => void p.check(), o.checkMs ?? 1000);
    p.timer.unref();
    return p;
  }

  private async connect(): Promise<void> {
    this.session = await PgSession.open({
      pool: this.o.pool,
      label: "presence",
      applicationName: `${PRESENCE_PREFIX}${this.o.instanceId}`,
      retryMs: 500,
      log: this.o.log,
    });
  }

  private async check(): Promise<void> {
    // Only while this instance is itself present: otherwise it may be the one cut off.
    if (this.checking || this.closed || !this.session?.connected) return;
    this.checking = true;
    try {
      const now = Date.now();
      const absent = new Map<string, number>();
      for (const id of await absentLeaseOwners(this.o.db, now)) {
        if (id !== this.o.instanceId) absent.set(id, (this.absent.get(id) ?? 0) + 1);
      }
      this.absent = absent;
      const gone = [...absent].filter(([, n]) => n >= ABSENT_CHECKS).map(([id]) => id);
      if (gone.length > 0) {
        const freed = await releaseLeasesOf(this.o.db, gone);
        for (const id of gone) this.absent.delete(id);
        this.o.log.info(
          { instances: gone, leases: freed },
          "took over the leases of instances that are gone",
        );
      }
    } catch (err) {
      this.o.log.warn({ err }, "presence check failed");
    } finally {
      this.checking = false;
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.timer) clearInterval(this.timer);
    await this.session?.close();
  }
}
