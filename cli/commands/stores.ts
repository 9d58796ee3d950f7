/**
 * `stores list|create|get|set|delete|keys`: the user's data stores, what their sources and steps
 * read and write through a `data_store` prop. A <store> is an id (ds_...) or a name; a name held by
 * several stores is refused (give the id). Values are JSON: `set` takes it from the argument or,
 * with `-`, from stdin.
 */
import type { Command } from "commander";
import { ApiError, pages, type Client } from "../../shared/client/index.js";
import { dataStoreKeyProblem, type DataStore, type DataStoreRecord } from "../../shared/resources/index.js";
import type { Context } from "../context.js";
import { CliError, UsageError } from "../errors.js";
import type { Column } from "../output/table.js";
import { relativeTime } from "../output/time.js";
import type { Act } from "../options.js";

export function registerStores(program: Command, act: Act) {
  const stores = program
    .command("stores")
    .description("data stores: keys and JSON values your sources and steps share across runs");
  stores
    .command("list")
    .alias("ls")
    .description("your data stores, with their keys and size")
    .action(act(list));
  stores
    .command("create")
    .description("create a data store")
    .argument("<name>", "its name")
    .action(act(create));
  stores
    .command("get")
    .description("print a record's value (JSON)")
    .argument("<store>", "the store's id (ds_...) or name")
    .argument("<key>", "the record's key")
    .action(act(get));
  stores
    .command("set")
    .description("create or replace a record")
    .argument("<store>", "the store's id (ds_...) or name")
    .argument("<key>", "the record's key")
    .argument("<json>", "the value as JSON, or - to read it from stdin")
    .option("--ttl <seconds>", "expire it this many seconds from now")
    .action(act(set));
  stores
    .command("delete")
    .alias("rm")
    .description(
      "delete a record, or without a key the whole store (refused while a source or step names it)",
    )
    .argument("<store>", "the store's id (ds_...) or name")
    .argument("[key]", "the record's key")
    .action(act(remove));
  stores
    .command("keys")
    .description("the store's records in key order")
    .argument("<store>", "the store's id (ds_...) or name")
    .option("--prefix <prefix>", "only keys that start with this")
    .action(act(keys));
}

/** The store a command names: by id, else the one store of that name. */
async function findStore(client: Client, named: string): Promise<DataStore> {
  if (/^ds_[A-Za-z0-9]+$/.test(named)) {
    try {
      return await client.getDataStore(named);
    } catch (err) {
      if (!(err instanceof ApiError && err.status === 404)) throw err;
    }
  }
  const found: DataStore[] = [];
  for await (const s of pages((q) => client.listMyDataStores(q))) if (s.name === named) found.push(s);
  if (found.length === 0)
    throw new CliError(`no data store named ${JSON.stringify(named)} (headwater stores list shows yours)`);
  if (found.length > 1)
    throw new CliError(
      `${found.length} data stores are named ${JSON.stringify(named)}: give one's id (${found.map((s) => s.id).join(", ")})`,
    );
  return found[0]!;
}

function checkedKey(key: string): string {
  const problem = dataStoreKeyProblem(key);
  if (problem) throw new UsageError(`${JSON.stringify(key)} is not a key: ${problem}`);
  return key;
}

const shortJson = (v: unknown) => {
  const text = JSON.stringify(v);
  return text.length > 60 ? `${text.slice(0, 57)}...` : text;
};

async function list(ctx: Context): Promise<void> {
  const { client } = await ctx.connect();
  const rows: DataStore[] = [];
  for await (const s of pages((q) => client.listMyDataStores(q))) rows.push(s);
  const columns: Column<DataStore>[] = [
    { header: "ID", cell: (s) => s.id },
    { header: "NAME", cell: (s) => s.name },
    { header: "KEYS", cell: (s) => String(s.keys) },
    { header: "BYTES", cell: (s) => String(s.bytes) },
    { header: "UPDATED", cell: (s) => relativeTime(s.updated_at * 1000) },
  ];
  ctx.out.rows(rows, columns);
}

async function create(ctx: Context, [name]: string[]): Promise<void> {
  const { client } = await ctx.connect();
  const s = await client.createDataStore(name!);
  ctx.out.fields(
    [
      ["created", s.id],
      ["name", s.name],
    ],
    s,
  );
}

async function get(ctx: Context, [named, key]: string[]): Promise<void> {
  checkedKey(key!);
  const { client } = await ctx.connect();
  const store = await findStore(client, named!);
  let rec: DataStoreRecord;
  try {
    rec = await client.getDataStoreRecord(store.id, key!);
  } catch (err) {
    if (err instanceof ApiError && err.status === 404)
      throw new CliError(`no key ${JSON.stringify(key)} in ${store.name}`);
    throw err;
  }
  if (ctx.out.json) ctx.out.jsonLine(rec);
  else ctx.out.say(JSON.stringify(rec.value, null, 2));
}

async function set(ctx: Context, [named, key, arg]: string[], opts: Record<string, unknown>): Promise<void> {
  checkedKey(key!);
  const ttl = opts.ttl === undefined ? undefined : Number(opts.ttl);
  if (ttl !== undefined && (!Number.isInteger(ttl) || ttl < 1))
    throw new UsageError(`--ttl is a whole number of seconds, at least 1 (not ${String(opts.ttl)})`);
  const text = arg === "-" ? await readStdin() : arg!;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new UsageError(`the value is not JSON: ${text.slice(0, 60)} (a string needs its quotes: '"text"')`);
  }
  const { client } = await ctx.connect();
  const store = await findStore(client, named!);
  const rec = await client.putDataStoreRecord(store.id, key!, {
    value,
    ...(ttl === undefined ? {} : { ttl_seconds: ttl }),
  });
  ctx.out.fields(
    [
      ["set", rec.key],
      ["value", shortJson(rec.value)],
      ["expires", rec.expires_at_ms === null ? "never" : new Date(rec.expires_at_ms).toISOString()],
    ],
    rec,
  );
}

async function remove(ctx: Context, [named, key]: string[]): Promise<void> {
  if (key !== undefined) checkedKey(key);
  const { client } = await ctx.connect();
  const store = await findStore(client, named!);
  try {
    if (key === undefined) await client.deleteDataStore(store.id);
    else await client.deleteDataStoreRecord(store.id, key);
  } catch (err) {
    if (err instanceof ApiError && err.status === 404 && key !== undefined)
      throw new CliError(`no key ${JSON.stringify(key)} in ${store.name}`);
    if (err instanceof ApiError && err.status === 409) throw new CliError(err.message);
    throw err;
  }
  const what = key === undefined ? `store ${store.name} (${store.id})` : `${key} from ${store.name}`;
  if (ctx.out.json)
    ctx.out.jsonLine({ store: store.id, ...(key === undefined ? {} : { key }), deleted: true });
  else ctx.out.say(`deleted ${what}`);
}

async function keys(ctx: Context, [named]: string[], opts: Record<string, unknown>): Promise<void> {
  const prefix = typeof opts.prefix === "string" ? opts.prefix : undefined;
  const { client } = await ctx.connect();
  const store = await findStore(client, named!);
  const rows: DataStoreRecord[] = [];
  for await (const r of pages((q) => client.listDataStoreRecords(store.id, { ...q, prefix }))) rows.push(r);
  const columns: Column<DataStoreRecord>[] = [
    { header: "KEY", cell: (r) => r.key },
    { header: "VALUE", cell: (r) => shortJson(r.value) },
    {
      header: "EXPIRES",
      cell: (r) => (r.expires_at_ms === null ? "never" : new Date(r.expires_at_ms).toISOString()),
    },
  ];
  ctx.out.rows(rows, columns);
}

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin)
    chunks.push(typeof chunk === "string" ? Buffer.from(chunk) : (chunk as Buffer));
  const text = Buffer.concat(chunks).toString("utf8").trim();
  if (text === "") throw new UsageError("no value on stdin");
  return text;
}
