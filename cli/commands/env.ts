/**
 * `env list|set|delete`: the user's environment variables, what their steps, actions and sources
 * read as `process.env.NAME`. Secret by default (`--plain` for one that may be shown): a secret's
 * value goes to the server and is never printed, by this or any command.
 *
 * `set NAME VALUE` takes the value from the argument; without it, from stdin (a pipe, a file, a
 * secret manager's output: one trailing line break is dropped, as `echo` and most files add one),
 * or from a hidden prompt on a terminal. An argument lands in the shell's history: for a secret,
 * stdin or the prompt is the better way.
 */
import type { Command } from "commander";
import { ApiError } from "../../shared/client/index.js";
import { ENV_LIMITS, envNameProblem, utf8Bytes, type EnvVar } from "../../shared/resources/index.js";
import type { Context } from "../context.js";
import { CliError, UsageError } from "../errors.js";
import { createPrompter } from "../output/prompt.js";
import type { Column } from "../output/table.js";
import { relativeTime } from "../output/time.js";
import type { Act } from "../options.js";

export function registerEnv(program: Command, act: Act) {
  const env = program
    .command("env")
    .description(
      "environment variables: what your steps, actions and sources read as process.env.NAME (secret by default)",
    );
  env
    .command("list")
    .alias("ls")
    .description("your variables: names, whether secret, and the values of plain ones (never a secret's)")
    .action(act(list));
  env
    .command("set")
    .description(
      "create or replace a variable (secret unless --plain); runs that start after it read the new value",
    )
    .argument("<name>", "the name: a letter or _, then letters, digits or _ (HEADWATER_... is reserved)")
    .argument(
      "[value]",
      "the value; without it, read from stdin (one trailing line break dropped), or asked for on a terminal",
    )
    .option("--plain", "not secret: its value may be shown (by list, the API, the dashboard)")
    .action(act(set));
  env
    .command("delete")
    .alias("rm")
    .description("delete a variable")
    .argument("<name>", "its name")
    .action(act(remove));
}

function checkedName(name: string): string {
  const problem = envNameProblem(name);
  if (problem) throw new UsageError(`${JSON.stringify(name)} is not a variable name: ${problem}`);
  return name;
}

/** Only what may be shown: a secret's value is never in an answer to begin with. */
const shown = (v: EnvVar) => ({
  name: v.name,
  secret: v.secret,
  ...(v.secret ? {} : { value: v.value ?? "" }),
  created_at: v.created_at,
  updated_at: v.updated_at,
});

async function list(ctx: Context): Promise<void> {
  const { client } = await ctx.connect();
  const rows = await client.listMyEnvVars();
  const dim = ctx.out.style.dim;
  const columns: Column<EnvVar>[] = [
    { header: "NAME", cell: (v) => v.name },
    { header: "SECRET", cell: (v) => (v.secret ? "yes" : dim("no")) },
    { header: "VALUE", cell: (v) => (v.secret ? dim("(hidden)") : (v.value ?? "")) },
    { header: "UPDATED", cell: (v) => relativeTime(v.updated_at * 1000) },
  ];
  ctx.out.rows(rows, columns, shown);
}

async function set(ctx: Context, [rawName, arg]: string[], opts: Record<string, unknown>): Promise<void> {
  const name = checkedName(rawName!);
  const secret = opts.plain !== true;
  // Read before connecting: a prompt is not interrupted by a local server starting.
  const value = arg ?? (await readValue(name, secret, ctx.out.stderr));
  if (utf8Bytes(value) > ENV_LIMITS.valueBytes)
    throw new UsageError(`the value of ${name} is over ${ENV_LIMITS.valueBytes} bytes`);
  const { client } = await ctx.connect();
  const v = await client.setEnvVar(name, { value, secret });
  ctx.out.fields(
    [
      ["set", v.name],
      ["secret", v.secret ? "yes (its value is not shown again)" : "no"],
      ...(v.secret ? [] : ([["value", v.value ?? ""]] as Array<[string, string]>)),
    ],
    shown(v),
  );
}

async function remove(ctx: Context, [rawName]: string[]): Promise<void> {
  const name = checkedName(rawName!);
  const { client } = await ctx.connect();
  try {
    await client.deleteEnvVar(name);
  } catch (err) {
    if (err instanceof ApiError && err.status === 404)
      throw new CliError(`no variable named ${name} (headwater env list shows yours)`);
    throw err;
  }
  if (ctx.out.json) ctx.out.jsonLine({ name, deleted: true });
  else ctx.out.say(`deleted ${name}`);
}

/** The value from a hidden prompt on a terminal, else all of stdin less one trailing line break. */
async function readValue(name: string, secret: boolean, stderr: NodeJS.WriteStream): Promise<string> {
  const stdin = process.stdin;
  if (stdin.isTTY === true) {
    const prompter = createPrompter(stdin, stderr);
    try {
      const value = await prompter.ask(`${name}${secret ? " (hidden)" : ""}: `, { secret });
      if (value === "") throw new UsageError(`no value given for ${name}: nothing saved`);
      return value;
    } finally {
      prompter.close();
    }
  }
  const chunks: Buffer[] = [];
  for await (const chunk of stdin)
    chunks.push(typeof chunk === "string" ? Buffer.from(chunk) : (chunk as Buffer));
  const text = Buffer.concat(chunks)
    .toString("utf8")
    .replace(/\r?\n$/, "");
  if (text === "") throw new UsageError(`no value for ${name}: give it as an argument or on stdin`);
  return text;
}
