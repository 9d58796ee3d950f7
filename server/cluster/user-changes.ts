/**
 * Users changed by an admin (disabled, enabled, quotas, deleted), on every instance. What an
 * instance remembers of a user for a moment (its endpoints' targets, its quota limits) must not
 * outlive the change: a deleted user's endpoints answer 404 at once, a disabled one's 403.
 *
 * The instance that makes a change forgets the user itself; with several instances on
 * PostgreSQL, the change's transaction also sends a notification (store/repos/cluster.ts) that
 * every instance's session receives here, and each instance acknowledges it once it has
 * forgotten the user. The change's request is answered only when every other instance present
 * has acknowledged, or REMEMBERED_AT_MOST_MS after the commit (by then an instance that missed
 * the notification has dropped what it read before the change anyway).
 *
 * Why wait: PostgreSQL hands a notification to the listening sessions some time after the commit,
 * not with it. Without the acknowledgements, a client that was told "disabled" and asked another
 * instance at once could be served from what that instance read before (it happened on a loaded
 * CI machine, and on demand by pausing an instance's listening backend).
 */
import { randomUUID } from "node:crypto";
import type pg from "pg";
import { PgSession } from "../store/pg-session.js";
import {
  USER_CHANGES_ACK_CHANNEL,
  USER_CHANGES_NOTIFY_CHANNEL,
  acknowledgeUserChange,
  listenForUserChanges,
  presentInstances,
  splitPair,
} from "../store/repos/cluster.js";
import { REMEMBERED_AT_MOST_MS } from "./remembered.js";

/** `application_name` prefix of the listening session (followed by the instance id). */
export const USER_CHANGES_SESSION_PREFIX = "headwater-user-changes:";

export type UserChangedListener = (userId: string) => void;

/** One change being made: its id goes into the change's transaction. */
export interface UserChangeAnnouncement {
  id: string;
  /** The change committed: forget the user here, and resolve once every instance has. */
  committed(): Promise<void>;
  /** Nothing was committed (an error, no such user): stop waiting for acknowledgements. */
  abandoned(): void;
}

interface Waiting {
  acknowledged: Set<string>;
  /** Called on each acknowledgement. */
  poke?: () => void;
}

export class UserChanges {
  private readonly listeners: UserChangedListener[] = [];
  private session: PgSession | undefined;
  private pool: pg.Pool | undefined;
  /** Changes made here whose acknowledgements are being collected, by change id. */
  private readonly waiting = new Map<string, Waiting>();

  /** `instanceId`: this instance's presence name (cluster/presence.ts), which acknowledgements carry. */
  constructor(
    private readonly instanceId: string,
    private readonly waitAtMostMs = REMEMBERED_AT_MOST_MS,
  ) {}

  /** Calls `listener` with the id of every user changed here or (PostgreSQL) on another instance. */
  onChanged(listener: UserChangedListener): void {
    this.listeners.push(listener);
  }

  /**
   * Before a change's transaction: its id (for the notification) starts collecting the other
   * instances' acknowledgements, so none that comes right after the commit is missed.
   */
  announce(userId: string): UserChangeAnnouncement {
    // Prefixed with this instance's id: its own notification, coming back, needs no acknowledgement.
    const id = `${this.instanceId}.${randomUUID()}`;
    const entry: Waiting = { acknowledged: new Set() };
    if (this.session) this.waiting.set(id, entry);
    return {
      id,
      committed: async () => {
        this.changed(userId);
        try {
          await this.othersForgot(entry);
        } finally {
          this.waiting.delete(id);
        }
      },
      abandoned: () => void this.waiting.delete(id),
    };
  }

  /** Listens for other instances' changes, and for acknowledgements of this one's. */
  async listen(pool: pg.Pool, log: { warn(obj: unknown, msg: string): void }): Promise<void> {
    this.pool = pool;
    this.session = await PgSession.open({
      pool,
      label: "user changes",
      // Named, so that a test can find it (test/scale/users-admin.test.ts); not a presence name.
      applicationName: `${USER_CHANGES_SESSION_PREFIX}${this.instanceId}`,
      retryMs: 1000,
      setup: listenForUserChanges,
      onNotification: (msg) => {
        if (!msg.payload) return;
        const pair = splitPair(msg.payload);
        if (msg.channel === USER_CHANGES_NOTIFY_CHANNEL) {
          // A bare user id: an instance of an earlier version (mid-upgrade), which waits for no one.
          if (pair) this.received(pair[0], pair[1], log);
          else this.changed(msg.payload);
        } else if (msg.channel === USER_CHANGES_ACK_CHANNEL && pair) this.acknowledged(pair[0], pair[1]);
      },
      // Changes sent while the connection was down are lost: forget every user to be safe.
      onReconnected: () => this.changed("*"),
      log,
    });
  }

  async close(): Promise<void> {
    await this.session?.close();
  }

  private changed(userId: string): void {
    for (const listener of this.listeners) listener(userId);
  }

  /** Another instance's change (or this one's own, coming back): forget, then say so. */
  private received(userId: string, changeId: string, log: { warn(obj: unknown, msg: string): void }): void {
    this.changed(userId);
    if (changeId.startsWith(`${this.instanceId}.`) || !this.session) return;
    acknowledgeUserChange(this.session, changeId, this.instanceId).catch((err: unknown) =>
      // The changing instance then waits its bound; what this one read before is gone by then.
      log.warn({ err }, "could not acknowledge a user change"),
    );
  }

  private acknowledged(changeId: string, instanceId: string): void {
    const entry = this.waiting.get(changeId);
    if (!entry) return;
    entry.acknowledged.add(instanceId);
    entry.poke?.();
  }

  /** Resolves once every other instance present has acknowledged, or after `waitAtMostMs`. */
  private async othersForgot(entry: Waiting): Promise<void> {
    if (!this.session || !this.pool) return;
    const deadline = Date.now() + this.waitAtMostMs;
    // Undefined when it cannot be told who is there: then the bound is waited out.
    const others = await presentInstances(this.pool).then(
      (ids) => ids.filter((id) => id !== this.instanceId),
      () => undefined,
    );
    const missing = () => !others || others.some((id) => !entry.acknowledged.has(id));
    if (!missing()) return;
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, Math.max(0, deadline - Date.now()));
      entry.poke = () => {
        if (missing()) return;
        clearTimeout(timer);
        resolve();
      };
    });
  }
}
