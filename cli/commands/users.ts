/**
 * `users list|create|set|disable|enable|delete`: an admin manages the server's users over the API
 * (`GET/POST /users`, `GET/PATCH/DELETE /users/{id}`). A `<user>` is an id (`u_...`) or a
 * username. Quotas take a number or `default` (the server's default: `null` in the API); compute
 * time also takes a unit (`90s`, `30m`, `2h`; a bare number is milliseconds, as in the API).
 */
import { InvalidArgumentError, type Command } from "commander";
import { ApiError, pages, type Client } from "../../shared/client/index.js";
import type { UpdateUserBody, User } from "../../shared/resources/index.js";
import type { Context } from "../context.js";
import { CliError, UsageError } from "../errors.js";
import type { Column } from "../output/table.js";
import { createPrompter } from "../output/prompt.js";
import type { Act } from "../options.js";

const USER_ID = /^u_[A-Za-z0-9]+$/;

export function registerUsers(program: Command, act: Act) {
  const users = program.command("users").description("manage the server's users (admins only): list, create, set, disable, enable, delete");
  users
    .command("list")
    .description("every user, with today's use of their quotas")
    .action(act(list));
  users
    .command("create")
    .description("create a user; prints their API key, once")
    .argument("<username>", "letters, digits, '_', '.' and '-'")
    .option("--email <address>", "their email address")
    .option("--admin", "make them an admin")
    .action(act(create));
  users
    .command("set")
    .description("change a user's quotas or admin flag (only the options given change)")
    .argument("<user>", "user id (u_...) or username")
    .option("--daily-invocations-quota <n>", "invocations a day, or `default` for the server's default", invocationsQuota)
    .option("--daily-compute-time-quota <time>", "compute time a day: 90s, 30m, 2h, milliseconds, or `default`", computeQuota)
    .option("--admin", "make them an admin")
    .option("--no-admin", "make them a plain user")
    .action(act(set));
  users
    .command("disable")
    .description("refuse the user's key (403) and stop their timers and endpoints; nothing is deleted")
    .argument("<user>", "user id (u_...) or username")
    .action(act((ctx, [ref]) => setDisabled(ctx, ref!, true)));
  users
    .command("enable")
    .description("let a disabled user in again; their timers and endpoints resume")
    .argument("<user>", "user id (u_...) or username")
    .action(act((ctx, [ref]) => setDisabled(ctx, ref!, false)));
  users
    .command("delete")
    .description("delete a user and everything they own (asks first; --yes does not)")
    .argument("<user>", "user id (u_...) or username")
    .option("--yes", "do not ask for confirmation")
    .action(act(remove));
}

/**
 * `--daily-invocations-quota`: a whole number or `default` (kept as the word: commander turns a
 * parser's null into an empty string; set() sends it as null).
 */
function invocationsQuota(value: string): number | "default" {
  if (value === "default") return value;
  if (!/^\d+$/.test(value) || !Number.isSafeInteger(Number(value))) throw new InvalidArgumentError("must be a whole number, 0 or more, or `default`.");
  return Number(value);
}

const UNIT_MS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/** `--daily-compute-time-quota`: milliseconds, a number with a unit, or `default`. */
function computeQuota(value: string): number | "default" {
  if (value === "default") return value;
  const m = /^(\d+(?:\.\d+)?)(ms|s|m|h|d)?$/.exec(value);
  const ms = m ? Math.round(Number(m[1]) * UNIT_MS[m[2] ?? "ms"]!) : NaN;
  if (!Number.isSafeInteger(ms)) throw new InvalidArgumentError("must be a time such as 90s, 30m, 2h, a number of milliseconds, or `default`.");
  return ms;
}

/** A user for people and scripts: never the key (only `create` shows one, once). */
const shown = ({ api_key: _key, ...user }: User) => user;

export function formatDuration(ms: number): string {
  if (ms < 1000) return `${ms} ms`;
  const s = ms / 1000;
  if (s < 60) return `${trim(s)} s`;
  if (s < 3600) return `${trim(s / 60)} min`;
  return `${trim(s / 3600)} h`;
}
const trim = (n: number) => String(Math.round(n * 10) / 10);

/** `12 of 100000`, with `(own)` where the user has a quota of their own rather than the default. */
function usage(used: number | undefined, quota: number | undefined, own: boolean, fmt: (n: number) => string = String): string {
  const q = quota === undefined ? "" : ` of ${fmt(quota)}${own ? " (own)" : ""}`;
  return `${used === undefined ? "-" : fmt(used)}${q}`;
}

async function allUsers(client: Client): Promise<User[]> {
  const out: User[] = [];
  for await (const u of pages((q) => client.listUsers(q))) out.push(u);
  return out;
}

async function resolveUser(client: Client, ref: string): Promise<User> {
  if (USER_ID.test(ref)) {
    try {
      return await client.getUser(ref);
    } catch (err) {
      if (err instanceof ApiError && err.status === 404) throw new CliError(`no user with id ${ref}`);
      throw err;
    }
  }
  const found = (await allUsers(client)).find((u) => u.username === ref);
  if (!found) throw new CliError(`no user named ${ref} (headwater users list shows them all)`);
  return found;
}

async function list(ctx: Context): Promise<void> {
  const { client } = await ctx.connect();
  const { out } = ctx;
  const yes = (b: boolean | undefined) => (b ? out.style.green("yes") : out.style.dim("no"));
  const columns: Column<User>[] = [
    { header: "USERNAME", cell: (u) => u.username },
    { header: "ID", cell: (u) => u.id },
    { header: "ADMIN", cell: (u) => yes(u.admin) },
    { header: "DISABLED", cell: (u) => (u.disabled ? out.style.red("yes") : out.style.dim("no")) },
    {
      header: "INVOCATIONS TODAY",
      cell: (u) => usage(u.daily_invocations_used, u.daily_invocations_quota, u.quota_overrides?.daily_invocations_quota != null),
    },
    {
      header: "COMPUTE TODAY",
      cell: (u) => usage(u.daily_compute_time_used, u.daily_compute_time_quota, u.quota_overrides?.daily_compute_time_quota != null, formatDuration),
    },
  ];
  out.rows(await allUsers(client), columns, shown);
}

function printUser(ctx: Context, user: User, first: Array<[string, string]> = []): void {
  const own = user.quota_overrides;
  ctx.out.fields(
    [
      ...first,
      ["username", user.username],
      ["id", user.id],
      ["email", user.email || "-"],
      ["admin", user.admin ? "yes" : "no"],
      ["disabled", user.disabled ? "yes" : "no"],
      ["invocations today", usage(user.daily_invocations_used, user.daily_invocations_quota, own?.daily_invocations_quota != null)],
      ["compute today", usage(user.daily_compute_time_used, user.daily_compute_time_quota, own?.daily_compute_time_quota != null, formatDuration)],
    ],
    shown(user),
  );
}

async function create(ctx: Context, [username]: string[], opts: Record<string, unknown>): Promise<void> {
  const { client } = await ctx.connect();
  const user = await client.createUser({
    username: username!,
    ...(opts.email !== undefined ? { email: opts.email as string } : {}),
    ...(opts.admin === true ? { admin: true } : {}),
  });
  if (ctx.out.json) {
    // The one place a key is printed: the caller asked for the new user's key.
    ctx.out.jsonLine(user);
  } else {
    printUser(ctx, user, [["api key", user.api_key ?? "-"]]);
  }
  ctx.out.info("The API key is shown only now: hand it to the user (it cannot be read again; they can rotate it).");
}

async function set(ctx: Context, [ref]: string[], opts: Record<string, unknown>): Promise<void> {
  const body: UpdateUserBody = {};
  const quota = (v: unknown) => (v === "default" ? null : (v as number));
  if (opts.dailyInvocationsQuota !== undefined) body.daily_invocations_quota = quota(opts.dailyInvocationsQuota);
  if (opts.dailyComputeTimeQuota !== undefined) body.daily_compute_time_quota = quota(opts.dailyComputeTimeQuota);
  if (opts.admin !== undefined) body.admin = opts.admin as boolean;
  if (Object.keys(body).length === 0) {
    throw new UsageError("nothing to change: give --daily-invocations-quota, --daily-compute-time-quota, --admin or --no-admin");
  }
  const { client } = await ctx.connect();
  const user = await resolveUser(client, ref!);
  printUser(ctx, await client.updateUser(user.id, body));
}

async function setDisabled(ctx: Context, ref: string, disabled: boolean): Promise<void> {
  const { client } = await ctx.connect();
  const user = await resolveUser(client, ref);
  const updated = await client.updateUser(user.id, { disabled });
  if (ctx.out.json) ctx.out.jsonLine(shown(updated));
  else ctx.out.say(`${disabled ? "disabled" : "enabled"} ${updated.id} (${updated.username})`);
}

async function remove(ctx: Context, [ref]: string[], opts: Record<string, unknown>): Promise<void> {
  const { client } = await ctx.connect();
  const user = await resolveUser(client, ref!);
  if (opts.yes !== true) {
    if (process.stdin.isTTY !== true) throw new UsageError("users delete removes the user and everything they own: add --yes to confirm (stdin is not a terminal)");
    const prompter = createPrompter(process.stdin, ctx.out.stderr);
    let answer: string;
    try {
      answer = await prompter.ask(`Delete ${user.username} (${user.id}) with every source, component, workflow and event they own? Type the username to confirm: `);
    } finally {
      prompter.close();
    }
    if (answer !== user.username) throw new CliError("not deleted: the answer was not the username");
  }
  await client.deleteUser(user.id);
  if (ctx.out.json) ctx.out.jsonLine({ id: user.id, username: user.username, deleted: true });
  else ctx.out.say(`deleted ${user.id} (${user.username}) and everything they owned`);
}
