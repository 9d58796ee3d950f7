/**
 * `accounts list|add|set|delete`: connected accounts, an app's credentials stored once on the
 * server (encrypted) and referenced by sources as `{"authProvisionId": "apn_..."}` (`deploy
 * --account`). The server answers with field names only; the values go in through a hidden
 * prompt or stdin (cli/accounts/values.ts) and are never printed, nor taken from an argument.
 */
import type { Command } from "commander";
import { ApiError, pages, type Client } from "../../shared/client/index.js";
import { isId } from "../../shared/ids.js";
import type { Account, UpdateAccountBody } from "../../shared/resources/index.js";
import { readValues, uniqueNames } from "../accounts/values.js";
import type { Context } from "../context.js";
import { CliError, UsageError } from "../errors.js";
import type { Column } from "../output/table.js";
import { relativeTime } from "../output/time.js";
import { collectRepeated, type Act } from "../options.js";

const VALUES_HELP = `
Values are never taken from an argument. On a terminal each field is asked for, hidden; otherwise
stdin is read: a JSON object ({"host": "db", "port": 5432}) or name=value lines.`;

export function registerAccounts(program: Command, act: Act) {
  const accounts = program.command("accounts").description("connected accounts: an app's credentials, stored once, used by sources (deploy --account)");
  accounts
    .command("list")
    .description("your accounts: their apps, names, field names (never values) and how many sources use each")
    .option("--app <app>", "only this app's accounts")
    .action(act(list));
  accounts
    .command("add")
    .description("store an app's credentials as a new account")
    .argument("<app>", "the app (postgresql, slack, ...): what the component's app prop names")
    .option("--name <name>", "a name to tell it apart (default: the server's)")
    .option("--field <name>", "a field to ask for (repeatable); on stdin, the fields it must hold", collectRepeated, [])
    .addHelpText("after", VALUES_HELP)
    .action(act(add));
  accounts
    .command("set")
    .description("replace every value of an account (a field left out is removed), or with only --name rename it")
    .argument("<id>", "the account's id (apn_...)")
    .option("--name <name>", "its new name")
    .option("--field <name>", "a field to ask for (repeatable; default: its current fields); on stdin, the fields it must hold", collectRepeated, [])
    .addHelpText("after", VALUES_HELP)
    .action(act(set));
  accounts
    .command("delete")
    .description("delete an account (refused while a source or workflow step uses it)")
    .argument("<id>", "the account's id (apn_...)")
    .action(act(remove));
}

function accountId(arg: string): string {
  if (!isId("account", arg)) throw new UsageError(`${JSON.stringify(arg)} is not an account id (apn_...): headwater accounts list shows yours`);
  return arg;
}

/** The API call, with a 404 said as "no such account" rather than the server's generic words. */
async function onAccount<T>(id: string, call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (err) {
    if (err instanceof ApiError && err.status === 404) throw new CliError(`no account with id ${id} (headwater accounts list shows yours)`);
    throw err;
  }
}

async function list(ctx: Context, _args: string[], opts: Record<string, unknown>): Promise<void> {
  const { client } = await ctx.connect();
  const app = opts.app as string | undefined;
  const rows: Account[] = [];
  for await (const a of pages((q) => client.listMyAccounts({ ...q, ...(app !== undefined ? { app } : {}) }))) rows.push(a);
  const dim = ctx.out.style.dim;
  const columns: Column<Account>[] = [
    { header: "ID", cell: (a) => a.id },
    { header: "APP", cell: (a) => a.app },
    { header: "NAME", cell: (a) => a.name },
    { header: "FIELDS", cell: (a) => (a.fields.length > 0 ? a.fields.join(", ") : dim("(none)")) },
    { header: "USED BY", cell: (a) => (a.used_by > 0 ? String(a.used_by) : dim("0")) },
    { header: "UPDATED", cell: (a) => relativeTime(a.updated_at * 1000) },
  ];
  ctx.out.rows(rows, columns);
}

function printAccount(ctx: Context, verb: string, account: Account): void {
  ctx.out.fields(
    [
      [verb, account.id],
      ["app", account.app],
      ["name", account.name],
      ["fields", account.fields.join(", ") || "-"],
      ["used by", String(account.used_by)],
    ],
    account,
  );
}

async function add(ctx: Context, [app]: string[], opts: Record<string, unknown>): Promise<void> {
  // The values are read before connecting: a typo on stdin costs no round trip, and a prompt is
  // not interrupted by a local server starting.
  const auth = await readValues({ fields: uniqueNames(opts.field as string[]), stderr: ctx.out.stderr });
  const { client } = await ctx.connect();
  const account = await client.createAccount({ app: app!, ...(opts.name !== undefined ? { name: opts.name as string } : {}), auth });
  printAccount(ctx, "created", account);
}

async function set(ctx: Context, [arg]: string[], opts: Record<string, unknown>): Promise<void> {
  const id = accountId(arg!);
  const fields = uniqueNames(opts.field as string[]);
  // `--name` alone renames; otherwise the values are replaced, every one of them.
  const newValues = opts.name === undefined || fields.length > 0;
  const { client } = await ctx.connect();
  const body: UpdateAccountBody = {};
  if (opts.name !== undefined) body.name = opts.name as string;
  if (newValues) body.auth = await readValues({ fields: fields.length > 0 ? fields : await currentFields(client, id), stderr: ctx.out.stderr });
  printAccount(ctx, "updated", await onAccount(id, () => client.updateAccount(id, body)));
}

/**
 * The fields a terminal asks for when `--field` is not given: the account's own. On stdin the
 * values say their names, so no request is made for them there.
 */
async function currentFields(client: Client, id: string): Promise<string[]> {
  if (process.stdin.isTTY !== true) return [];
  return (await onAccount(id, () => client.getAccount(id))).fields;
}

async function remove(ctx: Context, [arg]: string[]): Promise<void> {
  const id = accountId(arg!);
  const { client } = await ctx.connect();
  const account = await onAccount(id, () => client.getAccount(id));
  try {
    await client.deleteAccount(id);
  } catch (err) {
    if (err instanceof ApiError && err.code === "account_in_use") throw inUse(account, err);
    throw err;
  }
  if (ctx.out.json) ctx.out.jsonLine({ id, app: account.app, name: account.name, deleted: true });
  else ctx.out.say(`deleted ${id} (${account.app}, ${account.name})`);
}

/**
 * The 409 as one line that names what still uses the account (each detail says it: `source
 * "orders" (dc_...), prop db`), so the user knows what to change first.
 */
function inUse(account: Account, err: ApiError): CliError {
  const users = (err.details ?? []).map((d) => d.message || d.path);
  const what = users.length > 0 ? `: ${users.join("; ")}` : "";
  return new CliError(
    `${account.id} (${account.app}, ${account.name}) is in use, not deleted${what}. Point them at another account (deploy --account PROP=apn_...) or delete them first (account_in_use, HTTP 409)`,
  );
}
