/**
 * App props that reference accounts, bound when a source (or later a workflow step) is written,
 * inside that write's transaction:
 * - `{authProvisionId: "apn_..."}` must name an account of the same user (else 404, as any other
 *   user's resource);
 * - an inline `{$auth: {...}}` with values becomes an account of that user, named after the
 *   holder and the prop, and the prop references it. Writing inline values again replaces that
 *   account's values rather than making another;
 * - `account_uses` records what references what (an account's `used_by`, the 409 of its delete).
 * What is stored, and so every answer, list and stream, holds only `{authProvisionId}`.
 */
import { z } from "zod";
import { AccountAuth, accountIdOf, type PropDescriptor } from "../../shared/resources/index.js";
import { ERROR_CODES } from "../../shared/resources/index.js";
import { InvalidRequestError, NotFoundError } from "../errors.js";
import type { Db } from "../store/db.js";
import type { AccountRow, AccountsRepo, AccountUseRow } from "../store/repos/accounts.js";
import type { AccountService } from "./service.js";

export interface Holder {
  userId: string;
  /** The source's (or workflow's) id. */
  id: string;
  /** Its name, for the names of accounts made from inline values. */
  name: string;
}

const isRecord = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === "object" && !Array.isArray(v);

export class AccountReferences {
  constructor(
    private readonly repo: AccountsRepo,
    private readonly accounts: AccountService,
  ) {}

  /** `configured` (already validated against `props`) with every credential replaced by a reference. */
  async bind(trx: Db, holder: Holder, props: PropDescriptor[], configured: Record<string, unknown>): Promise<Record<string, unknown>> {
    const out = { ...configured };
    const uses: Array<{ accountId: string; prop: string }> = [];
    const referenced: Array<{ prop: string; id: string }> = [];
    for (const prop of props) {
      if (prop.type !== "app") continue;
      const value = out[prop.name];
      const ref = accountIdOf(value);
      if (ref !== undefined) {
        referenced.push({ prop: prop.name, id: ref });
        continue;
      }
      const auth = isRecord(value) && isRecord(value.$auth) ? value.$auth : undefined;
      if (!auth || Object.keys(auth).length === 0) continue;
      const checked = z.safeParse(AccountAuth, auth);
      if (!checked.success) {
        const message = checked.error.issues[0]?.message ?? "invalid";
        const path = `configured_props.${prop.name}.$auth`;
        throw new InvalidRequestError(`invalid ${path}: ${message}`, ERROR_CODES.validation, [{ path, message }]);
      }
      const id = await this.adopt(trx, holder, prop, checked.data);
      out[prop.name] = { authProvisionId: id };
      uses.push({ accountId: id, prop: prop.name });
    }
    if (referenced.length > 0) {
      const found = new Map((await this.repo.findOwnMany(holder.userId, referenced.map((r) => r.id), trx)).map((r) => [r.id, r]));
      for (const r of referenced) {
        const account = found.get(r.id);
        if (!account) throw new NotFoundError(`account ${r.id}`);
        // An account of another app would fail at run time with confusing errors: said now.
        const app = props.find((p) => p.name === r.prop)?.app;
        if (app !== undefined && account.app !== app) {
          const path = `configured_props.${r.prop}`;
          const message = `account ${r.id} is a ${account.app} account; this prop takes a ${app} account`;
          throw new InvalidRequestError(`invalid ${path}: ${message}`, ERROR_CODES.validation, [{ path, message }]);
        }
        uses.push({ accountId: r.id, prop: r.prop });
      }
    }
    await this.repo.setUses(holder.userId, holder.id, uses, trx);
    // An account made from this holder's inline values that it no longer uses goes (it was
    // never the user's own; one they reused elsewhere is still used, and stays).
    await this.repo.dropUnusedInline(holder.userId, holder.id, trx);
    return out;
  }

  /** The holder is deleted (in its transaction): its references go, and its inline accounts nothing else uses. */
  async holderDeleted(trx: Db, userId: string, holderId: string): Promise<void> {
    await this.repo.holderDeleted(userId, holderId, trx);
  }

  /** The account made from this holder's prop, its values replaced; or a new one. */
  private async adopt(trx: Db, holder: Holder, prop: PropDescriptor, auth: Record<string, unknown>): Promise<string> {
    const origin = `${holder.id}.${prop.name}`;
    const existing = await this.repo.findByOrigin(holder.userId, origin, trx);
    if (existing) {
      await this.accounts.update(holder.userId, existing.id, { auth }, trx);
      return existing.id;
    }
    const row = this.accounts.newRow(holder.userId, prop.app ?? prop.name, `${holder.name} (${prop.name})`, auth, origin);
    await this.repo.insert(row, trx);
    return row.id;
  }

  /** What `holderId` references and the accounts made from its inline values: restore() puts them back. */
  async snapshot(userId: string, holderId: string): Promise<HolderAccounts> {
    return {
      uses: await this.repo.usesOfHolder(holderId),
      inline: await this.repo.inlineOf(userId, holderId),
    };
  }

  /** Undoes bind() after a failed hook, in the holder's transaction. */
  async restore(trx: Db, userId: string, holderId: string, before: HolderAccounts): Promise<void> {
    await this.repo.setUses(userId, holderId, before.uses.map((u) => ({ accountId: u.account_id, prop: u.prop })), trx);
    for (const row of before.inline) {
      await this.repo.delete(userId, row.id, trx);
      await this.repo.insert(row, trx);
    }
    await this.repo.dropUnusedInline(userId, holderId, trx);
  }
}

export interface HolderAccounts {
  uses: AccountUseRow[];
  inline: AccountRow[];
}
