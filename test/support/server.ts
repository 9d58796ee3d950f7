/**
 * Test servers. `startServer()` runs the real server in this process on port 0 with a fresh
 * data dir (and a fresh PostgreSQL database when asked) and a random bootstrap admin key.
 * `spawnServer()` runs the built server (dist/js/server.mjs, as `npm run server` does) as a child
 * process, for restart and kill -9 tests; vitest's global setup builds it first.
 */
import { spawn, type ChildProcess } from "node:child_process";
import crypto from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { createClient, type Client } from "../../shared/client/index.js";
import type { User } from "../../shared/resources/index.js";
import { createServer, type Server } from "../../server/app.js";
import { loadConfig } from "../../server/config.js";
import { serverEntry } from "../../shared/app-paths.js";
import { observeLeaks } from "../../server/http/leak-guard.js";
import { databaseEnv, testDatabases, type FreshDatabase, type TestDatabase } from "./databases.js";

/**
 * Every error answer of every in-process test server goes through the rule "no server path,
 * command line or stack" (server/http/leak-guard.ts) before the server's own scrubbing: a leak
 * fails the suite whose server answered it, at its stop().
 */
const leaks: string[] = [];
observeLeaks(({ status, url, body, leak }) => leaks.push(`${leak} in ${status} of ${url}: ${body.slice(0, 500)}`));

export const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");

export interface StartOptions {
  /** Which database (default: SQLite). */
  db?: TestDatabase;
  /** Extra HEADWATER_* variables. */
  env?: Record<string, string>;
}

export interface TestUser {
  user: User;
  key: string;
  client: Client;
}

export interface TestServer {
  /** `http://127.0.0.1:<port>/v1` */
  baseUrl: string;
  /** `http://127.0.0.1:<port>` */
  origin: string;
  dataDir: string;
  databaseUrl: string | undefined;
  adminKey: string;
  admin: Client;
  server: Server;
  /** A new (non-admin) user made by the admin, with a client holding its key. */
  newUser(name?: string): Promise<TestUser>;
  /** A client for any key. */
  client(apiKey: string): Client;
  /** Stops the server and starts it again on the same data dir, database and port. */
  restart(): Promise<void>;
  stop(): Promise<void>;
}

export const randomKey = () => `test_${crypto.randomBytes(24).toString("hex")}`;

export function tempDataDir(): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), "hw-test-"));
}

export async function startServer(opts: StartOptions = {}): Promise<TestServer> {
  const db: TestDatabase = opts.db ?? testDatabases()[0]!;
  const fresh: FreshDatabase = await db.create();
  const dataDir = tempDataDir();
  const adminKey = randomKey();
  const env = (port: number): NodeJS.ProcessEnv => ({
    HEADWATER_HOST: "127.0.0.1",
    HEADWATER_PORT: String(port),
    HEADWATER_DATA_DIR: dataDir,
    HEADWATER_API_KEY: adminKey,
    HEADWATER_LOG_LEVEL: "error",
    // Unknown keys stay a plain 404 rather than a lookup on the npm registry; the tests of the
    // vendor's packages as a registry turn it on.
    HEADWATER_NPM_COMPONENTS: "0",
    // Tests and benches hammer the API from one key; the rate limit's own tests turn it on.
    HEADWATER_RATE_LIMIT: "0",
    ...databaseEnv(fresh.databaseUrl),
    ...opts.env,
  });

  let server = await createServer(loadConfig(env(0)));
  const port = Number(new URL(server.url).port);
  const origin = server.url;
  const baseUrl = `${origin}/v1`;
  const client = (apiKey: string) => createClient({ baseUrl, apiKey });
  let userCount = 0;
  let stopped = false;

  const handle: TestServer = {
    baseUrl,
    origin,
    dataDir,
    databaseUrl: fresh.databaseUrl,
    adminKey,
    admin: client(adminKey),
    server,
    client,
    newUser: async (name) => {
      const username = name ?? `user${++userCount}_${crypto.randomBytes(3).toString("hex")}`;
      const user = await handle.admin.createUser({ username, email: `${username}@example.test` });
      if (!user.api_key) throw new Error("POST /users returned no api_key");
      return { user, key: user.api_key, client: client(user.api_key) };
    },
    restart: async () => {
      await server.close();
      // Let this process's pooled client sockets see the close before they are reused;
      // restarting runs mostly synchronous work (SQLite) that would otherwise race it.
      await new Promise((r) => setTimeout(r, 50));
      server = await createServer(loadConfig(env(port)));
      handle.server = server;
    },
    stop: async () => {
      if (stopped) return;
      stopped = true;
      await server.close();
      await fresh.drop();
      fs.rmSync(dataDir, { recursive: true, force: true });
      const found = leaks.splice(0);
      if (found.length > 0) throw new Error(`error answers leaked server details:\n${found.join("\n")}`);
    },
  };
  return handle;
}

/**
 * A second instance of `first`'s server, in this process, on the same (PostgreSQL) database
 * and admin key, with a data directory of its own; `close` stops it and removes that directory.
 */
export async function startSecondInstance(first: TestServer): Promise<{ server: Server; close(): Promise<void> }> {
  const dataDir = tempDataDir();
  const server = await createServer(
    loadConfig({
      HEADWATER_HOST: "127.0.0.1",
      HEADWATER_PORT: "0",
      HEADWATER_DATA_DIR: dataDir,
      ...databaseEnv(first.databaseUrl),
      HEADWATER_API_KEY: first.adminKey,
      HEADWATER_LOG_LEVEL: "error",
    }),
  );
  return {
    server,
    close: async () => {
      await server.close();
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

// ---------------------------------------------------------------------------------------------

export interface SpawnOptions {
  dataDir: string;
  databaseUrl?: string | undefined;
  apiKey?: string;
  env?: Record<string, string>;
  /** How long to wait for `listening on` (default 30 s). */
  timeoutMs?: number;
  /**
   * Start the server as the leader of a process group of its own, so `killGroup` can kill it
   * together with everything it started (sandbox workers), as a crash of the machine would.
   */
  detached?: boolean;
  /** Another checkout of the repository to run the server of (benchmarks against a previous build). */
  root?: string;
  /** Extra node flags (a CPU profile: `--cpu-prof`). */
  nodeFlags?: string[];
}

export interface SpawnedServer {
  origin: string;
  baseUrl: string;
  child: ChildProcess;
  /** Everything the process printed so far. */
  output(): string;
  /**
   * SIGTERM (default) or SIGKILL, then wait for the exit; resolves with the exit code (null when
   * killed by a signal). A process still running after `timeoutMs` (default 20 s) is killed and
   * the promise rejects, so a shutdown that hangs fails its test instead of timing it out.
   */
  stop(signal?: NodeJS.Signals, timeoutMs?: number): Promise<number | null>;
  /**
   * SIGKILL to the whole process group at once (needs `detached`), then waits until no process
   * of the group is left.
   */
  killGroup(): Promise<void>;
}

/** Runs the built server on port 0 and resolves once it prints `listening on <url>`. */
export function spawnServer(opts: SpawnOptions): Promise<SpawnedServer> {
  const root = opts.root ?? REPO_ROOT;
  // Another checkout from before the build step (dist/js) runs its TypeScript through tsx.
  const prebuild = root !== REPO_ROOT && !fs.existsSync(path.join(root, "scripts", "build.mjs"));
  const entry = prebuild ? ["--import", "tsx", "server/main.ts"] : [serverEntry(root)];
  const child = spawn(process.execPath, [...(opts.nodeFlags ?? []), ...entry], {
    cwd: root,
    env: {
      ...process.env,
      HEADWATER_HOST: "127.0.0.1",
      HEADWATER_PORT: "0",
      HEADWATER_DATA_DIR: opts.dataDir,
      HEADWATER_LOG_LEVEL: "warn",
      HEADWATER_NPM_COMPONENTS: "0",
      HEADWATER_RATE_LIMIT: "0",
      ...(opts.apiKey ? { HEADWATER_API_KEY: opts.apiKey } : {}),
      ...databaseEnv(opts.databaseUrl),
      ...opts.env,
    },
    stdio: ["ignore", "pipe", "pipe"],
    detached: opts.detached === true,
  });
  let out = "";
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(new Error(`server did not start within ${opts.timeoutMs ?? 30_000} ms:\n${out}`));
    }, opts.timeoutMs ?? 30_000);
    const onData = (chunk: Buffer) => {
      out += chunk.toString();
      const m = /listening on (http:\/\/\S+)/.exec(out);
      if (m) {
        clearTimeout(timer);
        const origin = m[1]!;
        resolve({
          origin,
          baseUrl: `${origin}/v1`,
          child,
          output: () => out,
          killGroup: async () => {
            if (!opts.detached || child.pid === undefined) throw new Error("killGroup needs a server spawned with detached: true");
            const group = -child.pid;
            try {
              process.kill(group, "SIGKILL");
            } catch {
              return; // the group is gone already
            }
            await exited;
            // Children that outlive the leader for a moment still hold the data dir.
            for (let i = 0; i < 200; i++) {
              try {
                process.kill(group, 0);
              } catch {
                return;
              }
              await new Promise((r) => setTimeout(r, 25));
            }
            throw new Error("processes of the killed server's group are still running after 5 s");
          },
          stop: async (signal = "SIGTERM", timeoutMs = 20_000) => {
            if (child.exitCode !== null || child.signalCode !== null) return exited;
            child.kill(signal);
            let timer: NodeJS.Timeout | undefined;
            const hung = new Promise<never>((_, rejectStop) => {
              timer = setTimeout(() => {
                child.kill("SIGKILL");
                rejectStop(
                  new Error(`server did not exit within ${timeoutMs} ms of ${signal}:\n${out.slice(-2000)}`),
                );
              }, timeoutMs);
            });
            try {
              return await Promise.race([exited, hung]);
            } finally {
              clearTimeout(timer);
            }
          },
        });
      }
    };
    child.stdout!.on("data", onData);
    child.stderr!.on("data", (c: Buffer) => (out += c.toString()));
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`server exited (${code}) before listening:\n${out}`));
    });
  });
}
