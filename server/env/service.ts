/**
 * Environment variables (decisions.md "Workflow triggers, environment variables and data
 * stores"): a user's named values for their code. A secret's value is sealed with the key and
 * the cipher of connected accounts (secrets/keyring.ts) and never answered; a plain one's is
 * stored and answered as it is. Each change is announced to every instance (cluster/user-changes.ts)
 * and answered once they have forgotten what they read of the user's variables, so a run that
 * starts after the answer, anywhere, reads the new set (run-envs.ts).
 */
import {
  ENV_LIMITS,
  ERROR_CODES,
  utf8Bytes,
  type EnvVar,
  type SetEnvBody,
} from "../../shared/resources/index.js";
import type { UserChangeAnnouncement } from "../cluster/user-changes.js";
import { InvalidRequestError, NotFoundError } from "../errors.js";
import type { Keyring } from "../secrets/keyring.js";
import type { Db } from "../store/db.js";
import { nowSeconds } from "../store/repos/clock.js";
import type { EnvVarRow, EnvVarsRepo } from "../store/repos/env-vars.js";

/** What binds a sealed value to its row: moved onto another name or user, it does not open. */
export const envSealContext = (row: Pick<EnvVarRow, "user_id" | "name">): string =>
  `env:${row.name}:user:${row.user_id}`;

export type Announce = (userId: string) => UserChangeAnnouncement;

export class EnvService {
  constructor(
    private readonly repo: EnvVarsRepo,
    private readonly keyring: Keyring,
    private readonly announce: Announce,
  ) {}

  async list(userId: string): Promise<EnvVar[]> {
    return (await this.repo.listOwn(userId)).map(present);
  }

  /** Creates or replaces `name`; over the limit of variables per user, 400 and nothing changes. */
  async set(userId: string, name: string, body: SetEnvBody): Promise<EnvVar> {
    const secret = body.secret ?? true;
    let madeSecret = false;
    const row = await this.changing(userId, async (trx) => {
      const existing = await this.repo.findOwn(userId, name, trx);
      madeSecret = secret && existing !== undefined && Number(existing.secret) === 0;
      if (madeSecret) await this.repo.overwritePlain(existing!, utf8Bytes(existing!.value ?? ""), trx);
      if (!existing && (await this.repo.countOwn(userId, trx)) >= ENV_LIMITS.perUser) {
        const message = `a user holds at most ${ENV_LIMITS.perUser} environment variables: delete one first`;
        throw new InvalidRequestError(message, ERROR_CODES.validation, [{ path: "name", message }]);
      }
      const now = nowSeconds();
      const next: EnvVarRow = {
        user_id: userId,
        name,
        secret: secret ? 1 : 0,
        value: secret ? null : body.value,
        sealed: null,
        key_id: null,
        created_at: existing ? Number(existing.created_at) : now,
        updated_at: now,
      };
      if (secret) {
        next.sealed = this.keyring.seal(body.value, envSealContext(next));
        next.key_id = this.keyring.currentId;
      }
      await this.repo.upsert(next, trx);
      return next;
    });
    // A plain value made secret: the earlier versions of its page leave the WAL too.
    if (madeSecret) await this.emptyWal();
    return present(row);
  }

  /** 404 when the user has no variable of that name. */
  async delete(userId: string, name: string): Promise<void> {
    await this.changing(userId, async (trx) => {
      if (!(await this.repo.delete(userId, name, trx)))
        throw new NotFoundError(`environment variable ${name}`);
    });
  }

  /** Tries a few times while readers hold the checkpoint up (a busy server), then leaves it to the next. */
  private async emptyWal(): Promise<void> {
    for (let attempt = 0; attempt < 10; attempt++) {
      if (await this.repo.emptyWal()) return;
      await new Promise((r) => setTimeout(r, 50));
    }
  }

  /** One change, answered once every instance has forgotten the user's variables. */
  private async changing<T>(userId: string, fn: (trx: Db) => Promise<T>): Promise<T> {
    const change = this.announce(userId);
    let out: T;
    try {
      out = await this.repo.change(userId, change.id, fn);
    } catch (err) {
      change.abandoned();
      throw err;
    }
    await change.committed();
    return out;
  }
}

export function present(row: EnvVarRow): EnvVar {
  const secret = Number(row.secret) === 1;
  return {
    name: row.name,
    secret,
    ...(secret ? {} : { value: row.value ?? "" }),
    created_at: Number(row.created_at),
    updated_at: Number(row.updated_at),
  };
}
