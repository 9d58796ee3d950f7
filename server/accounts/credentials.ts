/**
 * Opening a holder's accounts for a run: `{authProvisionId}` props become `{$auth: values}` for
 * the sandbox, and the run gets a redactor for what it leaves behind (secrets/redact.ts). Read
 * from the database at every batch, so a PATCH takes effect for the runs that start after its
 * answer, on every instance. Opened values are remembered by their sealed text (an update
 * seals anew, so a changed value is never served from memory).
 */
import { accountIdOf } from "../../shared/resources/index.js";
import { SecretsKeyMismatchError, type Keyring } from "../secrets/keyring.js";
import { redactorFor } from "../secrets/redact.js";
import { CredentialsError, type CredentialOpener, type OpenedCredentials } from "../services.js";
import type { AccountsRepo } from "../store/repos/accounts.js";
import { sealContext } from "./service.js";

const REMEMBERED = 1000;

export class Credentials implements CredentialOpener {
  private readonly opened = new Map<string, Record<string, unknown>>();

  constructor(
    private readonly repo: AccountsRepo,
    private readonly keyring: Keyring,
  ) {}

  /** Opens the accounts `configured` references, as `userId` (a source's owner). */
  async open(userId: string, configured: Record<string, unknown>): Promise<OpenedCredentials> {
    const refs = Object.entries(configured).flatMap(([prop, v]) => {
      const id = accountIdOf(v);
      return id === undefined ? [] : [{ prop, id }];
    });
    if (refs.length === 0) return { props: configured, redactor: undefined };
    const rows = new Map((await this.repo.sealedFor(userId, [...new Set(refs.map((r) => r.id))])).map((r) => [r.id, r]));
    const props = { ...configured };
    const auths: Array<Record<string, unknown>> = [];
    for (const { prop, id } of refs) {
      const row = rows.get(id);
      if (!row) throw new CredentialsError("account_not_found", `prop ${prop}: account ${id} no longer exists`);
      const auth = this.openSealed(row.sealed, sealContext(row), prop, id);
      props[prop] = { $auth: auth };
      auths.push(auth);
    }
    return { props, redactor: redactorFor(auths) };
  }

  private openSealed(sealed: string, context: string, prop: string, id: string): Record<string, unknown> {
    const hit = this.opened.get(sealed);
    if (hit) return hit;
    let auth: Record<string, unknown>;
    try {
      auth = JSON.parse(this.keyring.open(sealed, context)) as Record<string, unknown>;
    } catch (err) {
      const why = err instanceof SecretsKeyMismatchError ? err.message : "its values cannot be read";
      throw new CredentialsError("secrets_key_mismatch", `prop ${prop}: account ${id} cannot be opened: ${why}`);
    }
    this.opened.set(sealed, auth);
    if (this.opened.size > REMEMBERED) this.opened.delete(this.opened.keys().next().value!);
    return auth;
  }
}
