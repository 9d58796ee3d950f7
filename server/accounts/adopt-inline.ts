/**
 * Start-up steps of connected accounts:
 * - Sources stored before accounts existed hold their credentials inline (`{$auth: {...}}` in
 *   `configured_props`, in clear). Each is moved into an account, as a new request's inline
 *   values are (references.ts), in one transaction per source. On SQLite the freed pages that
 *   held the clear values are then wiped (VACUUM) and the WAL emptied, so that the file holds no
 *   copy of them. Runs under the start-up lock: instances starting together take turns.
 * - Accounts sealed with a key this server does not hold are counted and reported once: their
 *   runs fail with `secrets_key_mismatch` until the right key is configured.
 */
import { sql } from "kysely";
import type { PropDescriptor } from "../../shared/resources/index.js";
import type { Keyring } from "../secrets/keyring.js";
import type { OpenedDb } from "../store/db.js";
import type { AccountsRepo } from "../store/repos/accounts.js";
import type { AccountReferences } from "./references.js";

interface Log {
  info(msg: string): void;
  warn(msg: string): void;
}

const hasInlineValues = (v: unknown): boolean => {
  if (v === null || typeof v !== "object" || Array.isArray(v)) return false;
  const auth = (v as Record<string, unknown>).$auth;
  return auth !== null && typeof auth === "object" && Object.keys(auth).length > 0;
};

/** Moves every source's inline credentials into accounts; returns how many sources changed. */
export async function adoptInlineCredentials(store: OpenedDb, refs: AccountReferences, log: Log): Promise<number> {
  const rows = await store.db
    .selectFrom("sources")
    .innerJoin("components", "components.id", "sources.component_id")
    .select(["sources.id", "sources.user_id", "sources.name", "sources.configured_props", "components.props"])
    .where("sources.configured_props", "like", '%"$auth"%')
    .execute();
  let moved = 0;
  for (const row of rows) {
    const configured = JSON.parse(row.configured_props) as Record<string, unknown>;
    const inline = Object.keys(configured).filter((k) => hasInlineValues(configured[k]));
    if (inline.length === 0) continue;
    // The component's app props, plus any prop holding `$auth` that the stored description
    // does not call an app (it was accepted as one when it was stored).
    const described = JSON.parse(row.props) as PropDescriptor[];
    const props: PropDescriptor[] = [
      ...described.filter((p) => p.type === "app"),
      ...inline.filter((n) => !described.some((p) => p.name === n && p.type === "app")).map((name) => ({ name, type: "app" })),
    ];
    await store.db.transaction().execute(async (trx) => {
      const bound = await refs.bind(trx, { userId: row.user_id, id: row.id, name: row.name }, props, configured);
      await trx.updateTable("sources").set({ configured_props: JSON.stringify(bound) }).where("id", "=", row.id).execute();
    });
    moved += 1;
  }
  if (moved > 0) {
    if (store.dialect === "sqlite") {
      await sql`VACUUM`.execute(store.db);
      await sql`PRAGMA wal_checkpoint(TRUNCATE)`.execute(store.db);
    }
    log.info(`connected accounts: moved the inline credentials of ${moved} source(s) into accounts`);
  }
  return moved;
}

/**
 * Warns about values sealed with keys this server does not hold: accounts by default, or what
 * `what` names (secret environment variables) with what then happens to the runs.
 */
export async function reportUnopenable(
  repo: Pick<AccountsRepo, "keyIds">,
  keyring: Keyring,
  log: Log,
  what = { noun: "account(s)", effect: "runs that need them fail with secrets_key_mismatch" },
): Promise<void> {
  const held = new Set(keyring.ids);
  for (const [keyId, count] of await repo.keyIds()) {
    if (held.has(keyId)) continue;
    log.warn(
      `secrets key mismatch: ${count} ${what.noun} were sealed with key ${keyId}, which this server does not have ` +
        `(it has ${keyring.ids.join(", ")}): ${what.effect}. ` +
        "Configure HEADWATER_SECRETS_KEY (or the data dir's secrets.key) as it was, or HEADWATER_SECRETS_KEY_PREVIOUS.",
    );
  }
}
