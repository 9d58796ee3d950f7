/**
 * Users changed by an admin (disabled, enabled, quotas, deleted), on every instance. What an
 * instance remembers of a user for a moment (its endpoints' targets, its quota limits) must not
 * outlive the change: a deleted user's endpoints answer 404 at once, a disabled one's 403.
 * The instance that made the change tells its own listeners directly; with several instances on
 * PostgreSQL, the change's transaction also sends a notification (store/repos/cluster.ts) that
 * every instance's session receives here.
 */
import type pg from "pg";
import { PgSession } from "../store/pg-session.js";
import { USER_CHANGES_NOTIFY_CHANNEL, listenForUserChanges } from "../store/repos/cluster.js";

export type UserChangedListener = (userId: string) => void;

export class UserChanges {
  private readonly listeners: UserChangedListener[] = [];
  private session: PgSession | undefined;

  /** Calls `listener` with the id of every user changed here or (PostgreSQL) on another instance. */
  onChanged(listener: UserChangedListener): void {
    this.listeners.push(listener);
  }

  /** A change made on this instance (committed). */
  changed(userId: string): void {
    for (const listener of this.listeners) listener(userId);
  }

  /** Listens for other instances' changes. */
  async listen(pool: pg.Pool, log: { warn(obj: unknown, msg: string): void }): Promise<void> {
    this.session = await PgSession.open({
      pool,
      label: "user changes",
      retryMs: 1000,
      setup: listenForUserChanges,
      onNotification: (msg) => {
        if (msg.channel === USER_CHANGES_NOTIFY_CHANNEL && msg.payload) this.changed(msg.payload);
      },
      // Changes sent while the connection was down are lost: forget every user to be safe.
      onReconnected: () => this.changed("*"),
      log,
    });
  }

  async close(): Promise<void> {
    await this.session?.close();
  }
}
