/**
 * The dashboard's Local profile from the command line: the same embedded server (the same
 * launcher, data dir and key file as the dashboard's web mode), so CLI and dashboard see the
 * same sources.
 *
 * - When a dashboard (or another `headwater` command) already runs it, the CLI attaches: the
 *   port is the one the runner saved in the settings, the key the one in the key file.
 * - Otherwise the CLI starts it for the length of the command and stops it at exit; it holds
 *   the same lock the dashboard takes, so the two never run the server twice on one database.
 */
import fs from "node:fs";
import path from "node:path";
import { FileKeyVault } from "../../electron/core/key-vault.js";
import { LocalProfileRunner } from "../../electron/core/local-profile.js";
import { LocalServerError } from "../../electron/core/local-server.js";
import { userDataDir } from "../../electron/core/paths.js";
import { LOCAL_PROFILE_ID, Profiles } from "../../electron/core/profiles.js";
import { JsonFileSettingsStore, parseSettings } from "../../electron/core/settings.js";
import { CliError } from "../errors.js";

export interface LocalConnection {
  baseUrl: string;
  apiKey: string;
  /** True when this command started the server (it stops at exit). */
  started: boolean;
  close(): Promise<void>;
}

export interface LocalOptions {
  appRoot: string;
  env: NodeJS.ProcessEnv;
  /** The server's log lines (shown with HEADWATER_DEBUG). */
  log: (line: string) => void;
}

export async function connectLocal(opts: LocalOptions): Promise<LocalConnection> {
  const dataDir = userDataDir(opts.env);
  // The web host's files: the desktop app keeps its key in the OS keychain, out of our reach.
  const settings = new JsonFileSettingsStore(path.join(dataDir, "web-settings.json"));
  const profiles = new Profiles(settings, new FileKeyVault(path.join(dataDir, "web-keys.json")));
  const runner = new LocalProfileRunner({
    appRoot: opts.appRoot,
    userDataDir: dataDir,
    profiles,
    log: opts.log,
    onChange: () => undefined,
    // A terminal's Ctrl-C must not stop the server before the command has cleaned up.
    detached: true,
  });

  const attached = await attach(runner.dataDir, dataDir, profiles);
  if (attached) return attached;
  try {
    const baseUrl = await runner.ensureStarted();
    return { baseUrl, apiKey: runner.apiKey(), started: true, close: () => runner.stop() };
  } catch (err) {
    // Someone took the lock between our look and our start: use theirs.
    const late = err instanceof LocalServerError ? await attach(runner.dataDir, dataDir, profiles) : undefined;
    if (late) return late;
    throw new CliError(err instanceof Error ? err.message.split("\n")[0]! : String(err));
  }
}

/** The running local server, when the lock names a live process and the server answers. */
async function attach(serverDir: string, dataDir: string, profiles: Profiles): Promise<LocalConnection | undefined> {
  const pid = lockHolder(path.join(serverDir, "dashboard.lock"));
  if (pid === undefined || pid === process.pid) return undefined;
  const port = profiles.readSettings().localServerPort ?? desktopSettingsPort(dataDir);
  const key = profiles.key(LOCAL_PROFILE_ID);
  if (!port) return undefined;
  const origin = `http://127.0.0.1:${port}`;
  const healthy = await fetch(`${origin}/healthz`, { signal: AbortSignal.timeout(3000) }).then(
    (r) => r.ok,
    () => false,
  );
  if (!healthy) return undefined;
  if (!key) {
    throw new CliError(
      "the desktop dashboard runs the local server and keeps its key in the OS keychain; use headwater login, or --api-url/--api-key",
    );
  }
  return { baseUrl: `${origin}/v1`, apiKey: key, started: false, close: async () => undefined };
}

function lockHolder(file: string): number | undefined {
  let pid: number;
  try {
    pid = Number(fs.readFileSync(file, "utf8").trim());
  } catch {
    return undefined;
  }
  if (!Number.isInteger(pid) || pid <= 0) return undefined;
  try {
    process.kill(pid, 0);
    return pid;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === "EPERM" ? pid : undefined;
  }
}

/** The desktop app's settings (electron-store's `settings.json`), for the port only. */
function desktopSettingsPort(dataDir: string): number | null {
  try {
    const raw = JSON.parse(fs.readFileSync(path.join(dataDir, "settings.json"), "utf8")) as { settings?: unknown };
    return parseSettings(raw.settings).localServerPort;
  } catch {
    return null;
  }
}
