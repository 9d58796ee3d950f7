/**
 * The `headwater` command: parse, run one command, print any error as one line on stderr, and
 * exit 0 (success), 1 (API, network or component error) or 2 (usage error).
 *
 * SIGINT / SIGTERM / SIGHUP: commands that run until stopped (`-f`, `dev`, `server`) clean up and
 * exit 0; any other command is interrupted with 130. A second signal exits at once (130). SIGHUP
 * (the terminal closed) is handled too: without a handler Node dies at once, skipping the exit
 * hook that stops a local server this command started in its own process group.
 */
import fs from "node:fs";
import path from "node:path";
import { CommanderError } from "commander";
import { APP_ROOT as appRoot } from "../shared/app-paths.js";
import type { Connection } from "./connection/resolve.js";
import type { Context } from "./context.js";
import { describeError, EXIT } from "./errors.js";
import { createOutput } from "./output/output.js";
import { withSpinner } from "./output/spinner.js";
import { buildProgram } from "./program.js";

export async function main(argv: string[]): Promise<number> {
  const env = process.env;
  const debug = env.HEADWATER_DEBUG === "1";
  const controller = new AbortController();
  let endsOnSignal = false;
  let connection: Promise<Connection> | undefined;
  let commandRunning = false;

  const closeConnection = async () => {
    const c = await connection?.catch(() => undefined);
    await c?.close().catch(() => undefined);
  };
  const onSignal = (signal: NodeJS.Signals) => {
    if (controller.signal.aborted) process.exit(EXIT.interrupted);
    controller.abort(signal);
    if (endsOnSignal || !commandRunning) return;
    process.stderr.write(`headwater: interrupted\n`);
    void closeConnection().finally(() => process.exit(EXIT.interrupted));
  };
  process.on("SIGINT", onSignal);
  process.on("SIGTERM", onSignal);
  process.on("SIGHUP", onSignal);
  // `headwater events -f | head -3`: the reader left, which is the end, not an error.
  process.stdout.on("error", (err: NodeJS.ErrnoException) => {
    if (err.code !== "EPIPE") return;
    endsOnSignal = true;
    controller.abort("EPIPE");
    void closeConnection().finally(() => process.exit(EXIT.ok));
  });
  // Whatever escapes a command is still one line, never a stack trace (unless HEADWATER_DEBUG=1).
  const fatal = (err: unknown) => {
    const { line, exitCode } = describeError(err);
    process.stderr.write(`headwater: ${line}\n`);
    if (debug && err instanceof Error && err.stack) process.stderr.write(`${err.stack}\n`);
    void closeConnection().finally(() => process.exit(exitCode));
  };
  process.on("uncaughtException", fatal);
  process.on("unhandledRejection", fatal);

  const context = (opts: Record<string, unknown>): Context => {
    const out = createOutput(opts.json === true);
    return {
      out,
      env,
      appRoot,
      signal: controller.signal,
      endsOnSignal: () => {
        endsOnSignal = true;
      },
      // Loaded on first use: commands that never connect (help, login's prompts) skip the client.
      connect: () =>
        (connection ??= import("./connection/resolve.js").then(({ connect }) => connect(
          { apiUrl: opts.apiUrl as string | undefined, apiKey: opts.apiKey as string | undefined, profile: opts.profile as string | undefined },
          {
            appRoot,
            env,
            starting: (work) => withSpinner(out.stderr, "starting the local server", work),
            log: (line) => {
              if (debug) process.stderr.write(`headwater: ${line}\n`);
            },
          },
        ))),
    };
  };

  try {
    const program = await buildProgram(
      {
        version: readVersion(),
        context,
        writeOut: (s) => process.stdout.write(s),
        writeErr: (s) => process.stderr.write(s),
      },
      argv,
    );
    commandRunning = true;
    await program.parseAsync(argv);
    return EXIT.ok;
  } catch (err) {
    if (err instanceof CommanderError) {
      // Commander printed the error (with a suggestion and help) or the help/version asked for.
      return err.exitCode === 0 || err.code === "commander.helpDisplayed" || err.code === "commander.version" ? EXIT.ok : EXIT.usage;
    }
    const { line, exitCode } = describeError(err);
    if (line) process.stderr.write(`headwater: ${line}\n`);
    if (debug && err instanceof Error && err.stack) process.stderr.write(`${err.stack}\n`);
    return exitCode;
  } finally {
    commandRunning = false;
    await closeConnection();
  }
}

function readVersion(): string {
  try {
    return (JSON.parse(fs.readFileSync(path.join(appRoot, "package.json"), "utf8")) as { version: string }).version;
  } catch {
    return "0.0.0";
  }
}
