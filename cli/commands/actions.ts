/**
 * `actions <app>` and `run <key>`: the vendor's actions (decisions.md "Actions"), found by app
 * and run by key on the server's sandbox. `--prop name=value` is typed by the action's own
 * props as `deploy` types a source's (cli/deploy/props.ts: a string prop keeps "123" a
 * string, other values are read as JSON where they parse), `--account prop=apn_...` gives an
 * app prop a connected account. A run whose action threw prints what it has and exits 1.
 */
import type { Command } from "commander";
import { ApiError, createClient, type Client } from "../../shared/client/index.js";
import type { Action, ActionResult, PropDescriptor } from "../../shared/resources/index.js";
import { buildProps, readPropsFile, splitAccountFlags, splitPropFlags, type AccountFlag } from "../deploy/props.js";
import { httpFetch } from "../connection/http-fetch.js";
import type { Context } from "../context.js";
import { CliError } from "../errors.js";
import type { Column } from "../output/table.js";
import { collectRepeated, type Act } from "../options.js";

/** The first listing of an app installs its package and describes every action: minutes, not seconds. */
const SLOW_MS = 300_000;

export function registerActions(program: Command, act: Act) {
  program
    .command("actions")
    .description("the actions of an app (its @pipedream/<app> package, installed by the server on first use); yours first")
    .argument("<app>", "the app: slack, postgresql, helper_functions, ...")
    .option("--search <text>", "only actions whose key, name or description hold this text")
    .action(act(list));
  program
    .command("run")
    .description("run an action by key (or your component's id) in the server's sandbox, and print its result")
    .argument("<key>", "the action's key (helper_functions-random-integer) or a component id (sc_...)")
    .option("--prop <name=value>", "a prop value (repeatable); JSON where it parses, else a string", collectRepeated, [])
    .option("--props-file <file>", "a JSON object of prop values (--prop wins)")
    .option("--account <prop=apn_...>", "an app prop's connected account (repeatable)", collectRepeated, [])
    .addHelpText("after", "\nExit code 1 when the action threw (its error, logs and exports are still printed).")
    .action(act(run));
}

/** The connection's client, with room for a package install. */
async function slowClient(ctx: Context): Promise<Client> {
  const { baseUrl, apiKey } = await ctx.connect();
  return createClient({ baseUrl, apiKey, fetch: httpFetch, timeoutMs: SLOW_MS });
}

async function list(ctx: Context, [app]: string[], opts: Record<string, unknown>): Promise<void> {
  const client = await slowClient(ctx);
  if (!ctx.out.json) ctx.out.info(`looking up the actions of ${app} (the first time, the server installs its package)...`);
  const actions = await onApp(app!, () => client.listActions({ app: app!, ...(typeof opts.search === "string" ? { q: opts.search } : {}) }));
  const dim = ctx.out.style.dim;
  const columns: Column<Action>[] = [
    { header: "KEY", cell: (a) => a.key },
    { header: "NAME", cell: (a) => a.name },
    { header: "VERSION", cell: (a) => a.version },
    { header: "PROPS", cell: (a) => shownProps(a.props) || dim("(none)") },
  ];
  ctx.out.rows(actions, columns);
}

/** `name` for a required prop, `name?` for an optional one; app props as `name (app)`. */
function shownProps(props: Action["props"]): string {
  return props
    .filter((p) => p.type !== "alert" && p.type !== "$.service.db")
    .map((p) => (p.type === "app" ? `${p.name} (${p.app ?? "app"})` : `${p.name}${p.optional || p.default !== undefined ? "?" : ""}`))
    .join(", ");
}

async function onApp<T>(app: string, call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (err) {
    if (err instanceof ApiError && err.status === 404) throw new CliError(`no app ${app}: the registry has no @pipedream/${app} package`);
    throw err;
  }
}

async function run(ctx: Context, [ref]: string[], opts: Record<string, unknown>): Promise<void> {
  const propFlags = splitPropFlags(opts.prop as string[]);
  const accountFlags = splitAccountFlags(opts.account as string[]);
  const fromFile = readPropsFile(opts.propsFile as string | undefined);
  const client = await slowClient(ctx);
  const byId = ref!.startsWith("sc_");
  // The props' declared types decide how each --prop is read.
  const props: PropDescriptor[] = byId
    ? (await client.getComponent(ref!)).configurable_props
    : (await onKey(ref!, () => client.getAction(ref!))).props.map(({ options: _choices, ...p }) => p);
  const accounts: AccountFlag[] = [];
  for (const [prop, id] of accountFlags) accounts.push({ prop, account: await client.getAccount(id) });
  const configured = buildProps(props, fromFile, propFlags, accounts);
  const result = await onKey(ref!, () => client.runAction({ ...(byId ? { component_id: ref! } : { key: ref! }), configured_props: configured }));
  if (ctx.out.json) ctx.out.jsonLine(result);
  else printResult(ctx, result);
  if (result.error) throw new CliError(`the action failed: ${result.error.name}: ${result.error.message}`);
}

async function onKey<T>(key: string, call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (err) {
    if (err instanceof ApiError && err.status === 404 && err.message.startsWith(`action ${key}`))
      throw new CliError(`no action ${key} (headwater actions <app> lists an app's actions)`);
    throw err;
  }
}

function printResult(ctx: Context, r: ActionResult): void {
  const { bold, dim, red } = ctx.out.style;
  const json = (v: unknown) => JSON.stringify(v, null, 2) ?? "undefined";
  for (const line of r.logs) ctx.out.say(dim(`[${line.level}] `) + line.message);
  if (r.summary !== null) ctx.out.say(`${bold("summary")}  ${r.summary}`);
  for (const [name, value] of Object.entries(r.exports)) ctx.out.say(`${bold("export")}   ${name} = ${json(value)}`);
  if (r.exit !== undefined) ctx.out.say(`${bold("exited")}   ${r.exit ?? "(no reason)"}`);
  if (r.error) ctx.out.say(red(`${bold("error")}    ${r.error.name}: ${r.error.message}`));
  else ctx.out.say(`${bold("returned")} ${json(r.ret)}`);
  ctx.out.say(dim(`(${r.duration_ms} ms)`));
}
