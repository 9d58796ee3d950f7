/**
 * `secrets rotate`: seals every connected account under the current secrets key, safely while
 * the server runs (docs/operations.md "Rotating the key"). Like `backup`, it works on the
 * server's storage rather than through the API, so it runs the server's own entry
 * (`server.mjs secrets rotate`) with the same HEADWATER_* variables: the same database, the same
 * keys, and no server code in the CLI.
 */
import { spawn } from "node:child_process";
import path from "node:path";
import { serverEntry } from "../../shared/app-paths.js";
import type { Command } from "commander";
import type { Context } from "../context.js";
import { CliError } from "../errors.js";
import type { Act } from "../options.js";

export function registerSecrets(program: Command, act: Act) {
  const secrets = program.command("secrets").description("the key that seals connected accounts' credentials: rotate");
  secrets
    .command("rotate")
    .description(
      "seal every account under the current key: with HEADWATER_SECRETS_KEY, re-seal what the previous key " +
        "(HEADWATER_SECRETS_KEY_PREVIOUS) sealed; with the data dir's key file, make a new key and re-seal everything",
    )
    .option("--data-dir <dir>", "the server's data dir (default: HEADWATER_DATA_DIR, else ~/.headwater)")
    .action(act(rotate));
}

async function rotate(ctx: Context, _args: string[], opts: Record<string, unknown>): Promise<void> {
  const dataDir = opts.dataDir as string | undefined;
  const env = { ...ctx.env, ...(dataDir ? { HEADWATER_DATA_DIR: path.resolve(dataDir) } : {}) };
  const child = spawn(process.execPath, [serverEntry(ctx.appRoot), "secrets", "rotate"], {
    cwd: ctx.appRoot,
    env,
    stdio: ["ignore", "inherit", "inherit"],
  });
  const code = await new Promise<number>((resolve, reject) => {
    child.once("error", (err) => reject(new CliError(`cannot run the rotation: ${err.message}`)));
    child.once("exit", (c) => resolve(c ?? 1));
  });
  // The rotation printed what it did and why it stopped; only the exit code is ours to pass on.
  if (code !== 0) throw new CliError("", code);
}
