/**
 * The command tree, on commander (a well-kept parser: subcommands, generated help, and "did you
 * mean" suggestions for unknown commands and flags). Each command lives in commands/ and
 * registers itself here; `act` turns a command function into a commander action with a Context
 * (the types and option parsers the commands share are in options.ts).
 *
 * A command's module, and what it imports, is loaded only when that command runs: `whoami` never
 * loads the file watcher, esbuild or the local server's code. The full tree is loaded when no
 * known command is named (the help, `help <command>`, an unknown command and its suggestions).
 */
import { Command } from "commander";
import type { Context } from "./context.js";
import type { Act } from "./options.js";

type Register = (program: Command, act: Act) => void;

/** The command modules in help order, with the commands each registers. */
const COMMANDS: Array<{ names: string[]; load: () => Promise<Register> }> = [
  { names: ["whoami"], load: async () => (await import("./commands/whoami.js")).registerWhoami },
  { names: ["list"], load: async () => (await import("./commands/list.js")).registerList },
  { names: ["deploy"], load: async () => (await import("./commands/deploy.js")).registerDeploy },
  { names: ["dev"], load: async () => (await import("./commands/dev.js")).registerDev },
  { names: ["events", "logs"], load: async () => (await import("./commands/events.js")).registerEvents },
  { names: ["listen"], load: async () => (await import("./commands/listen.js")).registerListen },
  { names: ["replay"], load: async () => (await import("./commands/replay.js")).registerReplay },
  { names: ["stats"], load: async () => (await import("./commands/stats.js")).registerStats },
  { names: ["runs"], load: async () => (await import("./commands/runs.js")).registerRuns },
  { names: ["workflows"], load: async () => (await import("./commands/workflows.js")).registerWorkflows },
  { names: ["delete", "activate", "deactivate"], load: async () => (await import("./commands/sources.js")).registerSourceCommands },
  { names: ["subscribe", "unsubscribe"], load: async () => (await import("./commands/subscribe.js")).registerSubscribe },
  { names: ["accounts"], load: async () => (await import("./commands/accounts.js")).registerAccounts },
  { names: ["env"], load: async () => (await import("./commands/env.js")).registerEnv },
  { names: ["stores"], load: async () => (await import("./commands/stores.js")).registerStores },
  { names: ["actions", "run"], load: async () => (await import("./commands/actions.js")).registerActions },
  { names: ["login"], load: async () => (await import("./commands/login.js")).registerLogin },
  { names: ["server"], load: async () => (await import("./commands/server.js")).registerServer },
  { names: ["backup"], load: async () => (await import("./commands/backup.js")).registerBackup },
  { names: ["secrets"], load: async () => (await import("./commands/secrets.js")).registerSecrets },
  { names: ["users"], load: async () => (await import("./commands/users.js")).registerUsers },
  { names: ["mcp"], load: async () => (await import("./commands/mcp.js")).registerMcp },
];

export interface ProgramOptions {
  version: string;
  /** Builds the Context from the options of the command being run (global ones included). */
  context: (opts: Record<string, unknown>) => Context;
  writeOut: (s: string) => void;
  writeErr: (s: string) => void;
}

/** The program, with the command named in `argv` (or every command, see above) registered. */
export async function buildProgram(o: ProgramOptions, argv: string[]): Promise<Command> {
  const program = new Command("headwater")
    .description("Deploy, develop and follow Headwater sources from the terminal.")
    .version(o.version, "-V, --version")
    .option("--api-url <url>", "API base URL, e.g. http://127.0.0.1:7433/v1 (with --api-key)")
    .option("--api-key <key>", "API key (with --api-url)")
    .option("--profile <name>", "a profile saved by headwater login (login: the name to save it as)")
    .option("--json", "print newline-delimited JSON: one object per row or event")
    .showSuggestionAfterError(true)
    .showHelpAfterError(true)
    .exitOverride()
    .configureOutput({ writeOut: o.writeOut, writeErr: o.writeErr })
    .addHelpText(
      "after",
      `
Connection, first match wins: --api-url/--api-key; --profile; HEADWATER_API_URL/HEADWATER_API_KEY;
the "default" profile (headwater login); else the dashboard's local server (started if needed).
A <source> is an id (dc_...) or a name, a <workflow> an id (p_...) or a name. Exit codes: 0 ok, 1 API or network error, 2 usage error.`,
    );

  const act: Act = (fn) => async (...raw) => {
    const cmd = raw[raw.length - 1] as Command;
    const args = cmd.processedArgs.filter((a): a is string => typeof a === "string");
    const opts = cmd.optsWithGlobals();
    await fn(o.context(opts), args, opts);
  };

  const args = argv.slice(2);
  const named = commandName(program, args);
  const wanted = COMMANDS.filter((c) => named !== undefined && c.names.includes(named));
  // `--version` alone needs no command at all.
  const none = named === undefined && args.some((a) => a === "-V" || a === "--version");
  for (const register of await Promise.all((none ? [] : wanted.length > 0 ? wanted : COMMANDS).map((c) => c.load()))) {
    register(program, act);
  }
  return program;
}

/** The first argument that is not a global option or an option's value: the command's name. */
function commandName(program: Command, args: string[]): string | undefined {
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    if (arg === "--") return args[i + 1];
    if (!arg.startsWith("-")) return arg;
    const option = program.options.find((o) => o.long === arg || o.short === arg);
    if (option && (option.required || option.optional)) i++;
  }
  return undefined;
}
