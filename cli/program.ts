/**
 * The command tree, on commander (a well-kept parser: subcommands, generated help, and "did you
 * mean" suggestions for unknown commands and flags). Each command lives in commands/ and
 * registers itself here; `act` turns a command function into a commander action with a Context
 * (the types and option parsers the commands share are in options.ts).
 */
import { Command } from "commander";
import { registerBackup } from "./commands/backup.js";
import { registerDeploy } from "./commands/deploy.js";
import { registerDev } from "./commands/dev.js";
import { registerEvents } from "./commands/events.js";
import { registerList } from "./commands/list.js";
import { registerListen } from "./commands/listen.js";
import { registerLogin } from "./commands/login.js";
import { registerReplay } from "./commands/replay.js";
import { registerServer } from "./commands/server.js";
import { registerSourceCommands } from "./commands/sources.js";
import { registerStats } from "./commands/stats.js";
import { registerUsers } from "./commands/users.js";
import { registerSubscribe } from "./commands/subscribe.js";
import { registerWhoami } from "./commands/whoami.js";
import type { Context } from "./context.js";
import type { Act } from "./options.js";


export interface ProgramOptions {
  version: string;
  /** Builds the Context from the options of the command being run (global ones included). */
  context: (opts: Record<string, unknown>) => Context;
  writeOut: (s: string) => void;
  writeErr: (s: string) => void;
}

export function buildProgram(o: ProgramOptions): Command {
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
A <source> is an id (dc_...) or a name. Exit codes: 0 ok, 1 API or network error, 2 usage error.`,
    );

  const act: Act = (fn) => async (...raw) => {
    const cmd = raw[raw.length - 1] as Command;
    const args = cmd.processedArgs.filter((a): a is string => typeof a === "string");
    const opts = cmd.optsWithGlobals();
    await fn(o.context(opts), args, opts);
  };

  registerWhoami(program, act);
  registerList(program, act);
  registerDeploy(program, act);
  registerDev(program, act);
  registerEvents(program, act);
  registerListen(program, act);
  registerReplay(program, act);
  registerStats(program, act);
  registerSourceCommands(program, act);
  registerSubscribe(program, act);
  registerLogin(program, act);
  registerServer(program, act);
  registerBackup(program, act);
  registerUsers(program, act);
  return program;
}
