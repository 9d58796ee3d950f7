/**
 * Connected accounts (decisions.md "Connected accounts"): a user's app credentials, stored once,
 * sealed at rest, answered as field names only. Sources reference them from `configured_props`
 * (`{authProvisionId}`); references.ts binds those, credentials.ts opens them for a run.
 */
import { newId } from "../../shared/ids.js";
import { ERROR_CODES, type Account, type AccountAuth, type CreateAccountBody, type UpdateAccountBody } from "../../shared/resources/index.js";
import { ConflictError, NotFoundError } from "../errors.js";
import type { Keyring } from "../secrets/keyring.js";
import type { Db } from "../store/db.js";
import { nextCreatedMs, nowSeconds } from "../store/repos/clock.js";
import type { AccountRow, AccountsRepo } from "../store/repos/accounts.js";
import type { PageRequest, PageRows } from "../store/repos/paging.js";

/** What binds a sealed value to its row: moved onto another row or user, it does not open. */
export const sealContext = (row: Pick<AccountRow, "id" | "user_id">): string => `account:${row.id}:user:${row.user_id}`;

/** Names of what references an account, for the 409 of a delete. */
export type HolderNames = (ids: string[], db: Db) => Promise<Map<string, { kind: string; name: string }>>;

export class AccountService {
  constructor(
    private readonly repo: AccountsRepo,
    private readonly keyring: Keyring,
    private readonly holderNames: HolderNames,
  ) {}

  async create(userId: string, body: CreateAccountBody, extra: { origin?: string } = {}, db?: Db): Promise<Account> {
    const name = body.name ?? `${body.app} #${(await this.repo.countOwn(userId, body.app)) + 1}`;
    const row = this.newRow(userId, body.app, name, body.auth, extra.origin ?? null);
    await this.repo.insert(row, db);
    return present(row, 0);
  }

  /** A new row with `auth` sealed (not stored). */
  newRow(userId: string, app: string, name: string, auth: AccountAuth, origin: string | null): AccountRow {
    const now = nowSeconds();
    const id = newId("account");
    return {
      id,
      user_id: userId,
      app,
      name,
      ...this.sealed({ id, user_id: userId }, auth),
      origin,
      created_ms: nextCreatedMs(),
      created_at: now,
      updated_at: now,
    };
  }

  async get(userId: string, id: string): Promise<Account> {
    const row = await this.findOwn(userId, id);
    const counts = await this.repo.useCounts([id]);
    return present(row, counts.get(id) ?? 0);
  }

  async list(userId: string, page: PageRequest, app?: string): Promise<PageRows<Account>> {
    const { rows, totalCount } = await this.repo.listOwn(userId, page, app);
    const counts = await this.repo.useCounts(rows.map((r) => r.id));
    return { rows: rows.map((r) => present(r, counts.get(r.id) ?? 0)), totalCount };
  }

  async update(userId: string, id: string, body: UpdateAccountBody, db?: Db): Promise<Account> {
    const row = await this.findOwn(userId, id, db);
    const patch = {
      ...(body.name !== undefined ? { name: body.name } : {}),
      ...(body.auth !== undefined ? this.sealed(row, body.auth) : {}),
      updated_at: nowSeconds(),
    };
    await this.repo.update(userId, id, patch, db);
    const counts = await this.repo.useCounts([id], db);
    return present({ ...row, ...patch }, counts.get(id) ?? 0);
  }

  /** Refused with 409 `account_in_use` while anything references it, naming what. */
  async delete(userId: string, id: string): Promise<void> {
    await this.repo.transaction(async (trx) => {
      await this.findOwn(userId, id, trx);
      const uses = await this.repo.usesOf(id, trx);
      if (uses.length > 0) {
        const names = await this.holderNames([...new Set(uses.map((u) => u.holder_id))], trx);
        const details = uses.map((u) => {
          const h = names.get(u.holder_id);
          return { path: `used_by.${u.holder_id}`, message: `${h ? `${h.kind} "${h.name}"` : "a holder"} (${u.holder_id}), prop ${u.prop}` };
        });
        throw new ConflictError(
          `account ${id} is in use by ${uses.length === 1 ? "1 prop" : `${uses.length} props`}: ${details.map((d) => d.message).join("; ")}. Point them at another account first.`,
          ERROR_CODES.accountInUse,
          details,
        );
      }
      await this.repo.delete(userId, id, trx);
    });
  }

  private async findOwn(userId: string, id: string, db?: Db): Promise<AccountRow> {
    const row = await this.repo.findOwn(userId, id, db);
    if (!row) throw new NotFoundError(`account ${id}`);
    return row;
  }

  private sealed(row: Pick<AccountRow, "id" | "user_id">, auth: AccountAuth) {
    return {
      fields: JSON.stringify(Object.keys(auth)),
      sealed: this.keyring.seal(JSON.stringify(auth), sealContext(row)),
      key_id: this.keyring.currentId,
    };
  }
}

export function present(row: AccountRow, usedBy: number): Account {
  return {
    id: row.id,
    app: row.app,
    name: row.name,
    fields: parseFields(row.fields),
    used_by: usedBy,
    created_at: Number(row.created_at),
    updated_at: Number(row.updated_at),
  };
}

function parseFields(text: string): string[] {
  try {
    const v = JSON.parse(text) as unknown;
    return Array.isArray(v) ? v.filter((f): f is string => typeof f === "string") : [];
  } catch {
    return [];
  }
}
