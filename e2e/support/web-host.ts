/**
 * Runs the web host (`electron/web/main.ts` built into dist/js/web.mjs, the real `npm run web`
 * entry) as a child process with a fresh app data dir on a free port, and resolves once it prints `dashboard at <url>`.
 * Without `remote` it uses the Local profile (the host starts the embedded server itself).
 */
import { spawn, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { ensureRendererBuilt } from "../../scripts/build-renderer.mjs";

export const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");

export interface WebHostOptions {
  /** A server to connect to as the environment profile (HEADWATER_API_URL / HEADWATER_API_KEY). */
  remote?: { baseUrl: string; apiKey: string };
  /** Reuse an app data dir (a second launch); default: a fresh one. */
  appDataDir?: string;
  env?: Record<string, string>;
  timeoutMs?: number;
}

export interface WebHost {
  /** The dashboard URL including its token. */
  url: string;
  origin: string;
  token: string;
  appDataDir: string;
  child: ChildProcess;
  output(): string;
  /** The local profile's API key as the host stored it (web mode keeps keys in a 0600 file). */
  localKey(): string | undefined;
  stop(): Promise<void>;
}

export async function startWebHost(opts: WebHostOptions = {}): Promise<WebHost> {
  await ensureRendererBuilt();
  const appDataDir = opts.appDataDir ?? fs.mkdtempSync(path.join(os.tmpdir(), "hw-app-"));
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) if (!k.startsWith("HEADWATER_")) env[k] = v;
  Object.assign(env, {
    HEADWATER_WEB_PORT: "0",
    HEADWATER_APP_DATA_DIR: appDataDir,
    ...(opts.remote ? { HEADWATER_API_URL: opts.remote.baseUrl, HEADWATER_API_KEY: opts.remote.apiKey } : {}),
    ...opts.env,
  });
  const child = spawn(process.execPath, [path.join(REPO_ROOT, "dist/js/web.mjs")], {
    cwd: REPO_ROOT,
    env,
    stdio: ["ignore", "pipe", "pipe"],
  });
  let out = "";
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(new Error(`the web host did not start:\n${out}`));
    }, opts.timeoutMs ?? 90_000);
    const onData = (c: Buffer) => {
      out += c.toString();
      const m = /dashboard at (http:\/\/\S+)/.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve(m[1]!);
      }
    };
    child.stdout!.on("data", onData);
    child.stderr!.on("data", (c: Buffer) => (out += c.toString()));
    void exited.then(() => {
      clearTimeout(timer);
      reject(new Error(`the web host exited before it was ready:\n${out}`));
    });
  });
  const u = new URL(url);
  return {
    url,
    origin: u.origin,
    token: u.searchParams.get("token") ?? "",
    appDataDir,
    child,
    output: () => out,
    localKey: () => {
      try {
        return (
          JSON.parse(fs.readFileSync(path.join(appDataDir, "web-keys.json"), "utf8")) as Record<
            string,
            string
          >
        ).local;
      } catch {
        return undefined;
      }
    },
    async stop() {
      if (child.exitCode === null && child.signalCode === null) {
        child.kill("SIGTERM");
        const timer = setTimeout(() => child.kill("SIGKILL"), 15_000);
        await exited;
        clearTimeout(timer);
      }
      if (!opts.appDataDir) fs.rmSync(appDataDir, { recursive: true, force: true });
    },
  };
}
