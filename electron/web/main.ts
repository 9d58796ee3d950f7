/**
 * `npm run web`: the dashboard in a browser. Builds the renderer if it is not built, starts the
 * host (the same core as Electron main) and a loopback HTTP server with a per-launch token, and
 * prints `dashboard at <url>`. Stops cleanly on SIGINT / SIGTERM (the local server too).
 */
import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { Host } from "../core/host.js";
import { FileKeyVault } from "../core/key-vault.js";
import { userDataDir } from "../core/paths.js";
import { ensureRendererBuilt } from "../../scripts/build-renderer.mjs";
import { JsonFileSettingsStore } from "../core/settings.js";
import { APP_ROOT } from "../../shared/app-paths.js";
import { bridgeBundler } from "./bridge-bundle.js";
import { parseWebEnv } from "./env.js";
import { startWebServer } from "./server.js";

const appRoot = APP_ROOT;
const say = (line: string) => process.stdout.write(`headwater: ${line}\n`);

async function main() {
  let env;
  try {
    env = parseWebEnv(process.env);
  } catch (err) {
    process.stderr.write(`headwater: ${(err as Error).message}\n`);
    process.exit(2);
  }
  const dataDir = userDataDir();
  const version = (JSON.parse(fs.readFileSync(path.join(appRoot, "package.json"), "utf8")) as { version: string }).version;
  const debug = process.env.HEADWATER_LOG_LEVEL === "debug";
  const host = new Host({
    mode: "web",
    version,
    appRoot,
    userDataDir: dataDir,
    settings: new JsonFileSettingsStore(path.join(dataDir, "web-settings.json")),
    // Web mode has no OS keychain: keys are in a file only this user can read (0600).
    vault: new FileKeyVault(path.join(dataDir, "web-keys.json")),
    env: env.remote,
    log: (m) => {
      if (debug || !m.startsWith("[local server]")) process.stderr.write(`headwater: ${m}\n`);
    },
  });
  const rendererDir = await ensureRendererBuilt({ log: say });
  const web = await startWebServer({
    host,
    port: env.port,
    token: crypto.randomBytes(24).toString("base64url"),
    rendererDir,
    bridgeScript: bridgeBundler(),
    log: (m) => process.stderr.write(`headwater: ${m}\n`),
  });
  host.start();
  const current = host.profiles.current();
  say(current?.kind === "local" ? "connection: Local (starting the embedded server)" : `connection: ${current?.name ?? "none"}`);
  say(`dashboard at ${web.url}`);

  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    say(`${signal}, stopping`);
    Promise.all([web.close(), host.stop()]).then(
      () => process.exit(0),
      (err: unknown) => {
        process.stderr.write(`headwater: error while stopping: ${String(err)}\n`);
        process.exit(1);
      },
    );
  };
  process.on("SIGINT", () => stop("SIGINT"));
  process.on("SIGTERM", () => stop("SIGTERM"));
}

main().catch((err: unknown) => {
  const e = err as NodeJS.ErrnoException;
  if (e.code === "EADDRINUSE") {
    process.stderr.write(`headwater: port ${process.env.HEADWATER_WEB_PORT ?? 7434} is in use: set HEADWATER_WEB_PORT to another port\n`);
  } else {
    process.stderr.write(`headwater: cannot start the dashboard: ${e.stack ?? String(err)}\n`);
  }
  process.exit(1);
});
