/**
 * Users: authentication by key, the bootstrap admin, admin-made users, key rotation, and the
 * user as the API shows it (with quota fields).
 */
import { newId } from "../../shared/ids.js";
import { ConflictError, NotFoundError } from "../errors.js";
import { ERROR_CODES, type UpdateUserBody, type User } from "../../shared/resources/index.js";
import type { Config } from "../config.js";
import { isUniqueViolation } from "../store/repos/errors.js";
import { LastAdminError, SYSTEM_USERNAME, type UserRow, type UsersRepo } from "../store/repos/users.js";
import type { PageRequest, PageRows } from "../store/repos/paging.js";
import type { UserChangeAnnouncement } from "../cluster/user-changes.js";
import { generateApiKey, hashApiKey, sameHash } from "./keys.js";

/** An authenticated caller: the user and the key it presented. */
export interface AuthUser {
  id: string;
  username: string;
  admin: boolean;
  apiKey: string;
  /** A disabled user's key is refused with 403 `user_disabled` (http/auth.ts). */
  disabled?: boolean;
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

export class LastAdminConflict extends ConflictError {
  constructor() {
    super("the last admin cannot be demoted, disabled or deleted", ERROR_CODES.lastAdmin);
  }
}

/** What the service needs around it for an admin's changes. */
export interface UserAdminDeps {
  /** The system user that keeps a deleted user's components other users' sources run. */
  heirId: () => string;
  /**
   * Before changing or deleting a user: the change's id for its transaction, then `committed()`
   * (forgets the user on every instance, resolves once they all have) or `abandoned()`.
   */
  announce: (userId: string) => UserChangeAnnouncement;
}

export class UserService {
  private admin: UserAdminDeps | undefined;

  constructor(
    private readonly repo: UsersRepo,
    private readonly config: Pick<Config, "quotas">,
    private readonly usage: QuotaUsage | undefined,
  ) {}

  /** Wires what deleting and changing users needs (known once the runtime and seeds exist). */
  useAdminDeps(deps: UserAdminDeps): void {
    this.admin = deps;
  }

  /** The user holding `key`, or undefined. */
  async authenticate(key: string): Promise<AuthUser | undefined> {
    const hash = hashApiKey(key);
    const row = await this.repo.findByKeyHash(hash);
    if (!row || !sameHash(row.key_hash, hash)) return undefined;
    return { id: row.id, username: row.username, admin: row.admin === 1, apiKey: key, disabled: Number(row.disabled) === 1 };
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
    return { rows: await Promise.all(rows.map((r) => this.present(r, undefined, true))), totalCount };
  }

  /** Admin: one user, with `disabled` and their own quotas. */
  async get(id: string): Promise<User> {
    const row = await this.repo.findById(id);
    if (!row || row.username === SYSTEM_USERNAME) throw new NotFoundError(`user ${id}`);
    return this.present(row, undefined, true);
  }

  /** Admin: changes only the fields given; refuses to leave no enabled admin (409 `last_admin`). */
  async update(id: string, body: UpdateUserBody): Promise<User> {
    const target = await this.repo.findById(id);
    if (!target || target.username === SYSTEM_USERNAME) throw new NotFoundError(`user ${id}`);
    const change = this.admin?.announce(id);
    let row: UserRow | undefined;
    try {
      row = await this.repo.updateAdminFields(
        id,
        {
          admin: body.admin,
          disabled: body.disabled,
          dailyInvocationsQuota: body.daily_invocations_quota,
          dailyComputeMsQuota: body.daily_compute_time_quota,
        },
        change?.id,
      );
    } catch (err) {
      change?.abandoned();
      if (err instanceof LastAdminError) throw new LastAdminConflict();
      throw err;
    }
    if (!row) {
      change?.abandoned();
      throw new NotFoundError(`user ${id}`);
    }
    // Answered once no instance serves what it read before the change (the spec's "at once").
    await change?.committed();
    return this.present(row, undefined, true);
  }

  /**
   * Admin: deletes the user and everything they own in one transaction; their timers stop and
   * their endpoints answer 404 at once (answered once every instance has forgotten them:
   * `announce`).
   */
  async delete(id: string): Promise<void> {
    if (!this.admin) throw new Error("user deletion is not wired (useAdminDeps)");
    if (id === this.admin.heirId()) throw new NotFoundError(`user ${id}`);
    const change = this.admin.announce(id);
    let deleted: { targets: string[] } | undefined;
    try {
      deleted = await this.repo.deleteWithEverything(id, this.admin.heirId(), change.id);
    } catch (err) {
      change.abandoned();
      if (err instanceof LastAdminError) throw new LastAdminConflict();
      throw err;
    }
    if (!deleted) {
      change.abandoned();
      throw new NotFoundError(`user ${id}`);
    }
    await change.committed();
  }

  private async present(row: UserRow, apiKey: string | undefined, forAdmin = false): Promise<User> {
    const used = (await this.usage?.usedToday(row.id)) ?? { computeMs: 0, invocations: 0 };
    const ownInvocations = row.daily_invocations_quota === null ? null : Number(row.daily_invocations_quota);
    const ownCompute = row.daily_compute_ms_quota === null ? null : Number(row.daily_compute_ms_quota);
    const user: User = {
      id: row.id,
      username: row.username,
      email: row.email,
      admin: row.admin === 1,
      daily_compute_time_quota: ownCompute ?? this.config.quotas.dailyComputeMs,
      daily_compute_time_used: used.computeMs,
      daily_invocations_quota: ownInvocations ?? this.config.quotas.dailyInvocations,
      daily_invocations_used: used.invocations,
      disabled: Number(row.disabled) === 1,
    };
    if (forAdmin) {
      user.quota_overrides = { daily_invocations_quota: ownInvocations, daily_compute_time_quota: ownCompute };
    }
    if (apiKey !== undefined) user.api_key = apiKey;
    return user;
  }
}
