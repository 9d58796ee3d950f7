/**
 * Starts the bundled Headwater server as a child process for the "Local" profile: plain Node
 * running the built server (dist/js/server.mjs, made by scripts/build.mjs), bound to loopback,
 * with its own data dir and an API key the host generated and keeps in its vault. Ready when the server prints `listening on <url>`.
 *
 * The child is plain Node, never Electron-as-Node: the server's native modules (better-sqlite3)
 * are built for Node's ABI.
 */
import { spawn } from "node:child_process";
import fs from "node:fs";
import net from "node:net";
import path from "node:path";
import { serverEntry } from "../../shared/app-paths.js";

export interface LocalServerOptions {
  /** The project root: holds the built server (`dist/js/server.mjs`) and `node_modules`. */
  appRoot: string;
  /** The server's own data dir (SQLite database, package cache). */
  dataDir: string;
  /** The admin key the server is started with (HEADWATER_API_KEY). */
  apiKey: string;
  /** Port used last time; reused when free so endpoint URLs stay stable. */
  preferredPort?: number | null;
  /** The Node binary (default: this process's when it is Node, else `node` on PATH). */
  nodePath?: string;
  startTimeoutMs?: number;
  /** Extra environment for the server (tests set quotas, retention...). */
  env?: Record<string, string>;
  /** Every line the server prints, for the host's log. */
  onLog?: (line: string) => void;
  /**
   * Run the server in a process group of its own (default false). A terminal's Ctrl-C goes to
   * its whole foreground group; the CLI needs the server to outlive that signal long enough to
   * clean up (delete a dev source), then stops it itself.
   */
  detached?: boolean;
}

export interface LocalServer {
  /** `http://127.0.0.1:<port>/v1` */
  baseUrl: string;
  port: number;
  /** Resolves once the process is gone. SIGTERM first (the server finishes in-flight work), SIGKILL after 10 s. */
  stop(): Promise<void>;
  /** Called once if the server exits without being asked to. */
  onUnexpectedExit(cb: (reason: string) => void): void;
}

export class LocalServerError extends Error {}

export async function isPortFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const probe = net.createServer();
    probe.once("error", () => resolve(false));
    probe.listen(port, "127.0.0.1", () => probe.close(() => resolve(true)));
  });
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = net.createServer();
    probe.once("error", reject);
    probe.listen(0, "127.0.0.1", () => {
      const { port } = probe.address() as net.AddressInfo;
      probe.close(() => resolve(port));
    });
  });
}

export function defaultNodePath(): string {
  return process.versions.electron ? "node" : process.execPath;
}

export async function startLocalServer(opts: LocalServerOptions): Promise<LocalServer> {
  const entry = serverEntry(opts.appRoot);
  if (!fs.existsSync(entry)) throw new LocalServerError(`the bundled server is missing (${entry}): run npm run build`);
  fs.mkdirSync(opts.dataDir, { recursive: true, mode: 0o700 });
  const releaseLock = takeLock(path.join(opts.dataDir, "dashboard.lock"));

  const port =
    opts.preferredPort && (await isPortFree(opts.preferredPort)) ? opts.preferredPort : await freePort();

  // The server reads only HEADWATER_* variables; the user's own ones (a Postgres URL, another
  // port) are for `npm run server`, not for the embedded one.
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) {
    if (v !== undefined && !k.startsWith("HEADWATER_") && k !== "ELECTRON_RUN_AS_NODE") env[k] = v;
  }
  Object.assign(env, {
    HEADWATER_HOST: "127.0.0.1",
    HEADWATER_PORT: String(port),
    HEADWATER_DATA_DIR: opts.dataDir,
    HEADWATER_API_KEY: opts.apiKey,
    ...opts.env,
  });

  const child = spawn(opts.nodePath ?? defaultNodePath(), [entry], {
    cwd: opts.appRoot,
    env,
    stdio: ["ignore", "pipe", "pipe"],
    detached: opts.detached ?? false,
  });
  const killOnExit = () => child.kill("SIGKILL");
  process.once("exit", killOnExit);

  const tail: string[] = [];
  const remember = (line: string) => {
    tail.push(line);
    if (tail.length > 20) tail.shift();
    opts.onLog?.(line);
  };

  let exited = false;
  let stopping = false;
  let unexpectedExit: ((reason: string) => void) | undefined;
  const exitPromise = new Promise<void>((resolve) => {
    child.once("exit", (code, signal) => {
      exited = true;
      releaseLock();
      process.removeListener("exit", killOnExit);
      if (!stopping) unexpectedExit?.(`the local server stopped (${signal ?? `exit code ${code}`}): ${lastLines(tail)}`);
      resolve();
    });
  });

  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(new LocalServerError(`the local server did not start within ${Math.round((opts.startTimeoutMs ?? 60_000) / 1000)} s: ${lastLines(tail)}`));
    }, opts.startTimeoutMs ?? 60_000);
    const onLine = (line: string) => {
      remember(line);
      const m = /listening on (https?:\/\/\S+)/.exec(line);
      if (m) {
        clearTimeout(timer);
        resolve(m[1]!.replace(/\/+$/, ""));
      }
    };
    lines(child.stdout!, onLine);
    lines(child.stderr!, remember);
    child.once("error", (err) => {
      clearTimeout(timer);
      releaseLock();
      reject(new LocalServerError(`cannot run the local server: ${err.message}`));
    });
    child.once("exit", (code, signal) => {
      clearTimeout(timer);
      reject(new LocalServerError(`the local server stopped while starting (${signal ?? `exit code ${code}`}): ${lastLines(tail)}`));
    });
  });

  return {
    baseUrl: `${url}/v1`,
    port: Number(new URL(url).port),
    onUnexpectedExit(cb) {
      unexpectedExit = cb;
    },
    async stop() {
      if (exited) return;
      stopping = true;
      child.kill("SIGTERM");
      const timer = setTimeout(() => child.kill("SIGKILL"), 10_000);
      await exitPromise;
      clearTimeout(timer);
    },
  };
}

/**
 * One dashboard per local data dir: two would run every timer source twice against the same
 * database. The lock file holds the owner's pid; a lock whose process is gone is taken over.
 */
function takeLock(file: string): () => void {
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      fs.writeFileSync(file, String(process.pid), { flag: "wx", mode: 0o600 });
      return () => fs.rmSync(file, { force: true });
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== "EEXIST") throw err;
      const pid = Number(fs.readFileSync(file, "utf8").trim());
      if (Number.isInteger(pid) && pid > 0 && isAlive(pid)) {
        throw new LocalServerError(`another Headwater dashboard (process ${pid}) is already running the local server`);
      }
      fs.rmSync(file, { force: true });
    }
  }
  throw new LocalServerError(`cannot take the local server lock (${file})`);
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === "EPERM";
  }
}

function lines(stream: NodeJS.ReadableStream, onLine: (line: string) => void) {
  let buf = "";
  stream.setEncoding("utf8");
  stream.on("data", (chunk: string) => {
    buf += chunk;
    let i: number;
    while ((i = buf.indexOf("\n")) >= 0) {
      onLine(buf.slice(0, i));
      buf = buf.slice(i + 1);
    }
  });
}

function lastLines(tail: string[]): string {
  const text = tail.slice(-5).join(" | ").trim();
  return text || "no output";
}

