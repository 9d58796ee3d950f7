/**
 * A user's environment variables as their runs get them (services.ts RunEnv): read from the
 * database, secrets opened, with the redactor that hides the secret values in what a run leaves
 * behind (secrets/redact.ts, the one connected accounts use).
 *
 * Remembered per user, so that a steady stream of runs does not read 200 rows and open 200 sealed
 * values each time. A change made here forgets the user at once; one made on another instance
 * is announced over the cluster channel (cluster/user-changes.ts), and with several instances
 * (`maxAgeMs`, PostgreSQL) nothing is used longer than REMEMBERED_AT_MOST_MS after it was read,
 * the bound that channel's answers wait for. So a run that starts after a change's answer reads
 * the new variables, on every instance.
 *
 * A set read again that holds the same variables keeps its key: the workers that hold it are not
 * sent it again (runtime/run-env.ts).
 */
import { randomUUID } from "node:crypto";
import type { Keyring } from "../secrets/keyring.js";
import { redactorForSecrets } from "../secrets/redact.js";
import type { EnvOpener, RunEnv } from "../services.js";
import type { EnvVarsRepo } from "../store/repos/env-vars.js";
import { envSealContext } from "./service.js";

export const NO_ENV: RunEnv = Object.freeze({ key: "", vars: Object.freeze({}), redactor: undefined });

/** Users whose variables are remembered at once; the longest unused is dropped past it. */
const USERS_HELD = 500;
/** Opened secrets remembered by their sealed text (a change seals anew: never served stale). */
const OPENED_HELD = 5000;

interface Held {
  at: number;
  env: Promise<RunEnv>;
}

export interface RunEnvsOptions {
  /** How long a read set may be used; undefined: until a change here (one instance: SQLite). */
  maxAgeMs?: number | undefined;
  log?: { warn(obj: unknown, msg: string): void };
}

export class RunEnvs implements EnvOpener {
  private readonly held = new Map<string, Held>();
  /** The last set read per user, to keep its key when a read finds the same variables. */
  private readonly last = new Map<string, RunEnv>();
  private readonly opened = new Map<string, string>();
  private readonly warned = new Set<string>();

  constructor(
    private readonly repo: Pick<EnvVarsRepo, "forRun">,
    private readonly keyring: Keyring,
    private readonly options: RunEnvsOptions = {},
  ) {}

  forRun(userId: string): Promise<RunEnv> {
    const now = Date.now();
    const hit = this.held.get(userId);
    const maxAge = this.options.maxAgeMs;
    if (hit && (maxAge === undefined || now - hit.at < maxAge)) {
      // Most recently used last: the first one is the one to drop.
      this.held.delete(userId);
      this.held.set(userId, hit);
      return hit.env;
    }
    const entry: Held = { at: now, env: this.load(userId) };
    this.held.set(userId, entry);
    // A failed read is not remembered: the next run reads again.
    entry.env.catch(() => {
      if (this.held.get(userId) === entry) this.held.delete(userId);
    });
    if (this.held.size > USERS_HELD) this.dropOldest();
    return entry.env;
  }

  /** Forgets what was read of `userId`'s variables (`*`: of everyone). */
  forget(userId: string): void {
    if (userId === "*") {
      this.held.clear();
      return;
    }
    this.held.delete(userId);
  }

  private dropOldest(): void {
    const oldest = this.held.keys().next().value;
    if (oldest === undefined) return;
    this.held.delete(oldest);
    this.last.delete(oldest);
  }

  private async load(userId: string): Promise<RunEnv> {
    const rows = await this.repo.forRun(userId);
    const entries: Array<[string, string]> = [];
    const secrets: string[] = [];
    for (const row of rows) {
      if (Number(row.secret) !== 1) {
        entries.push([row.name, row.value ?? ""]);
        continue;
      }
      const plain = this.open(userId, row.name, row.sealed ?? "");
      if (plain === undefined) continue;
      entries.push([row.name, plain]);
      secrets.push(plain);
    }
    if (entries.length === 0) {
      this.last.delete(userId);
      return NO_ENV;
    }
    const before = this.last.get(userId);
    if (before && sameVars(before.vars, entries)) return before;
    // fromEntries defines own properties: a variable named `__proto__` stays a variable.
    const vars = Object.freeze(Object.fromEntries(entries) as Record<string, string>);
    const env: RunEnv = { key: randomUUID(), vars, redactor: redactorForSecrets(secrets) };
    this.last.set(userId, env);
    return env;
  }

  /**
   * A secret's value, or undefined when no key this server holds opens it: the variable is then
   * left out of the run's environment (and the server says so once), rather than failing runs.
   */
  private open(userId: string, name: string, sealed: string): string | undefined {
    const hit = this.opened.get(sealed);
    if (hit !== undefined) return hit;
    let plain: string;
    try {
      plain = this.keyring.open(sealed, envSealContext({ user_id: userId, name }));
    } catch (err) {
      const seen = `${userId}\0${name}\0${sealed.slice(0, 40)}`;
      if (!this.warned.has(seen)) {
        this.warned.add(seen);
        this.options.log?.warn(
          { user: userId, variable: name, reason: err instanceof Error ? err.message : String(err) },
          "an environment variable's secret value cannot be opened with the configured secrets key: runs go without it",
        );
      }
      return undefined;
    }
    this.opened.set(sealed, plain);
    if (this.opened.size > OPENED_HELD) this.opened.delete(this.opened.keys().next().value!);
    return plain;
  }
}

function sameVars(vars: Readonly<Record<string, string>>, entries: Array<[string, string]>): boolean {
  const names = Object.keys(vars);
  if (names.length !== entries.length) return false;
  for (const [name, value] of entries) {
    if (!Object.prototype.hasOwnProperty.call(vars, name) || vars[name] !== value) return false;
  }
  return true;
}
