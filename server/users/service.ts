/**
 * Users: authentication by key, the bootstrap admin, admin-made users, key rotation, and the
 * user as the API shows it (with quota fields).
 */
import { newId } from "../../shared/ids.js";
import { ConflictError } from "../errors.js";
import type { User } from "../../shared/resources/index.js";
import type { Config } from "../config.js";
import { isUniqueViolation } from "../store/repos/errors.js";
import type { UserRow, UsersRepo } from "../store/repos/users.js";
import type { PageRequest, PageRows } from "../store/repos/paging.js";
import { generateApiKey, hashApiKey, sameHash } from "./keys.js";

/** An authenticated caller: the user and the key it presented. */
export interface AuthUser {
  id: string;
  username: string;
  admin: boolean;
  apiKey: string;
}

/** Today's usage of a user's daily quotas (counted by quotas/, owned by the runtime). */
export interface QuotaUsage {
  usedToday(userId: string): Promise<{ computeMs: number; invocations: number }>;
}

export class UsernameTakenError extends ConflictError {
  constructor(username: string) {
    super(`username ${username} is taken`);
  }
}

export class UserService {
  constructor(
    private readonly repo: UsersRepo,
    private readonly config: Pick<Config, "quotas">,
    private readonly usage: QuotaUsage | undefined,
  ) {}

  /** The user holding `key`, or undefined. */
  async authenticate(key: string): Promise<AuthUser | undefined> {
    const hash = hashApiKey(key);
    const row = await this.repo.findByKeyHash(hash);
    if (!row || !sameHash(row.key_hash, hash)) return undefined;
    return { id: row.id, username: row.username, admin: row.admin === 1, apiKey: key };
  }

  /** `HEADWATER_API_KEY`: make sure user `admin` exists, is an admin and holds `key`. Idempotent. */
  async ensureBootstrapAdmin(key: string): Promise<void> {
    const hash = hashApiKey(key);
    const holder = await this.repo.findByKeyHash(hash);
    if (holder) {
      if (holder.admin !== 1) await this.repo.setAdmin(holder.id);
      return;
    }
    const admin = await this.repo.findByUsername("admin");
    if (admin) {
      await this.repo.addKey(admin.id, hash);
      if (admin.admin !== 1) await this.repo.setAdmin(admin.id);
      return;
    }
    await this.repo.create({ id: newId("user"), username: "admin", email: "", admin: true, keyHash: hash });
  }

  /** Admin: a new user with a fresh key, returned once in `api_key`. */
  async create(input: {
    username: string;
    email?: string | undefined;
    admin?: boolean | undefined;
  }): Promise<User> {
    if (await this.repo.findByUsername(input.username)) throw new UsernameTakenError(input.username);
    const key = generateApiKey();
    let row: UserRow;
    try {
      row = await this.repo.create({
        id: newId("user"),
        username: input.username,
        email: input.email ?? "",
        admin: input.admin ?? false,
        keyHash: hashApiKey(key),
      });
    } catch (err) {
      // A concurrent request took the name between the check and the insert.
      if (isUniqueViolation(err)) throw new UsernameTakenError(input.username);
      throw err;
    }
    return this.present(row, key);
  }

  async me(auth: AuthUser): Promise<User> {
    const row = await this.repo.findById(auth.id);
    if (!row) throw new Error(`authenticated user ${auth.id} vanished`);
    return this.present(row, auth.apiKey);
  }

  /** Issues a new key; every earlier key of the user is refused from now on. */
  async rotateKey(auth: AuthUser): Promise<User> {
    const key = generateApiKey();
    await this.repo.replaceKeys(auth.id, hashApiKey(key));
    const row = await this.repo.findById(auth.id);
    if (!row) throw new Error(`authenticated user ${auth.id} vanished`);
    return this.present(row, key);
  }

  async list(page: PageRequest): Promise<PageRows<User>> {
    const { rows, totalCount } = await this.repo.list(page);
    // Other users' keys are never shown: only hashes are stored, and they are not ours to show.
    return { rows: await Promise.all(rows.map((r) => this.present(r, undefined))), totalCount };
  }

  private async present(row: UserRow, apiKey: string | undefined): Promise<User> {
    const used = (await this.usage?.usedToday(row.id)) ?? { computeMs: 0, invocations: 0 };
    const user: User = {
      id: row.id,
      username: row.username,
      email: row.email,
      admin: row.admin === 1,
      daily_compute_time_quota: this.config.quotas.dailyComputeMs,
      daily_compute_time_used: used.computeMs,
      daily_invocations_quota: this.config.quotas.dailyInvocations,
      daily_invocations_used: used.invocations,
    };
    if (apiKey !== undefined) user.api_key = apiKey;
    return user;
  }
}
