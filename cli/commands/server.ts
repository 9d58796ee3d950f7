/**
 * `server`: runs the API server in the foreground, exactly as `npm run server` (same entry,
 * same HEADWATER_* variables), and exits with its exit code. A terminal's Ctrl-C reaches both
 * processes; a SIGTERM sent to this one is passed on, and the server stops cleanly either way.
 */
import { spawn } from "node:child_process";
import { serverEntry } from "../../shared/app-paths.js";
import type { Command } from "commander";
import type { Context } from "../context.js";
import { CliError } from "../errors.js";
import type { Act } from "../options.js";

export function registerServer(program: Command, act: Act) {
  program
    .command("server")
    .description("run the API server (same as npm run server; configured by HEADWATER_* variables)")
    .action(act(server));
}

async function server(ctx: Context): Promise<void> {
  ctx.endsOnSignal();
  const child = spawn(process.execPath, [serverEntry(ctx.appRoot)], {
    cwd: ctx.appRoot,
    env: ctx.env,
    stdio: "inherit",
  });
  const forward = () => child.kill("SIGTERM");
  ctx.signal.addEventListener("abort", forward, { once: true });
  const code = await new Promise<number>((resolve, reject) => {
    child.once("error", (err) => reject(new CliError(`cannot run the server: ${err.message}`)));
    child.once("exit", (c, signal) => resolve(c ?? (signal === "SIGINT" ? 130 : 1)));
  });
  ctx.signal.removeEventListener("abort", forward);
  // The server printed its own reasons; only the exit code is ours to pass on.
  if (code !== 0) throw new CliError("", code);
}
