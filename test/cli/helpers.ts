/**
 * Running the real `headwater` binary: `cli/bin.mjs` reached through a symlink named
 * `headwater` on PATH, as `npm link` or `npm install -g` installs it. Each run gets an
 * environment without the caller's HEADWATER_* variables and its own config dir, so nothing on
 * the machine (a saved profile, a running dashboard) decides which server a test talks to.
 */
import { spawn, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { REPO_ROOT } from "../support/server.js";
import { tempDir as tempDirOf } from "../support/temp-dirs.js";

/** A temp dir, removed when the test file ends. */
export const tempDir = (prefix = "hw-cli-") => tempDirOf(prefix);

let binDir: string | undefined;
/**
 * The dir of the `headwater` symlink, a temp dir of the test file: made again when the end of a
 * file removed it (test files may share this module, see vitest.config.ts).
 */
function headwaterBinDir(): string {
  if (binDir === undefined || !fs.existsSync(binDir)) {
    binDir = tempDirOf("hw-cli-bin-");
    fs.symlinkSync(path.join(REPO_ROOT, "cli", "bin.mjs"), path.join(binDir, "headwater"));
  }
  return binDir;
}

export interface CliEnvOptions {
  /** HEADWATER_* and other variables for this run. */
  env?: Record<string, string | undefined>;
  /** The config dir (HEADWATER_APP_DATA_DIR); default: a fresh temp dir. */
  appDataDir?: string;
}

export function cliEnv(opts: CliEnvOptions = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) {
    if (!k.startsWith("HEADWATER_") && k !== "XDG_CONFIG_HOME" && k !== "FORCE_COLOR") env[k] = v;
  }
  env.PATH = `${headwaterBinDir()}${path.delimiter}${process.env.PATH ?? ""}`;
  env.NO_COLOR = "1";
  env.HEADWATER_APP_DATA_DIR = opts.appDataDir ?? tempDir("hw-cli-cfg-");
  for (const [k, v] of Object.entries(opts.env ?? {})) {
    if (v === undefined) delete env[k];
    else env[k] = v;
  }
  return env;
}

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

export interface RunOptions extends CliEnvOptions {
  cwd?: string;
  /** Written to stdin, then stdin is closed. */
  input?: string;
  timeoutMs?: number;
  /** Its own process group, like a job in a terminal: `killGroup` then signals it as Ctrl-C does. */
  ownGroup?: boolean;
}

/** Runs `headwater ...args` to its end. */
export async function runCli(args: string[], opts: RunOptions = {}): Promise<CliResult> {
  const cli = startCli(args, opts);
  return cli.done(opts.timeoutMs ?? 60_000);
}

export interface RunningCli {
  child: ChildProcess;
  stdout(): string;
  stderr(): string;
  /** Resolves once `pattern` appears in the stream (default stdout); rejects after `timeoutMs`. */
  waitFor(pattern: RegExp, stream?: "stdout" | "stderr", timeoutMs?: number): Promise<RegExpMatchArray>;
  /** Waits for the exit (killing the process after `timeoutMs`, which fails the wait). */
  done(timeoutMs?: number): Promise<CliResult>;
  kill(signal: NodeJS.Signals): void;
  /** Signals the whole process group (needs `ownGroup`): what a terminal's Ctrl-C does. */
  killGroup(signal: NodeJS.Signals): void;
}

export function startCli(args: string[], opts: RunOptions = {}): RunningCli {
  const child = spawn("headwater", args, {
    cwd: opts.cwd ?? REPO_ROOT,
    env: cliEnv(opts),
    stdio: ["pipe", "pipe", "pipe"],
    detached: opts.ownGroup === true,
  });
  let out = "";
  let err = "";
  const waiters = new Set<() => void>();
  const changed = () => {
    for (const w of [...waiters]) w();
  };
  child.stdout!.setEncoding("utf8").on("data", (c: string) => {
    out += c;
    changed();
  });
  child.stderr!.setEncoding("utf8").on("data", (c: string) => {
    err += c;
    changed();
  });
  if (opts.input !== undefined) child.stdin!.end(opts.input);
  else child.stdin!.end();
  const exited = new Promise<number | null>((resolve) => child.once("close", (code) => resolve(code)));
  void exited.then(changed);

  return {
    child,
    stdout: () => out,
    stderr: () => err,
    waitFor(pattern, stream = "stdout", timeoutMs = 45_000) {
      return new Promise((resolve, reject) => {
        const check = () => {
          const m = (stream === "stdout" ? out : err).match(pattern);
          if (m) {
            cleanup();
            resolve(m);
          } else if (child.exitCode !== null || child.signalCode !== null) {
            cleanup();
            reject(new Error(`headwater exited (${child.exitCode ?? child.signalCode}) before ${pattern} appeared on ${stream}\nstdout:\n${out}\nstderr:\n${err}`));
          }
        };
        const timer = setTimeout(() => {
          cleanup();
          reject(new Error(`${pattern} did not appear on ${stream} within ${timeoutMs} ms\nstdout:\n${out}\nstderr:\n${err}`));
        }, timeoutMs);
        const cleanup = () => {
          clearTimeout(timer);
          waiters.delete(check);
        };
        waiters.add(check);
        check();
      });
    },
    async done(timeoutMs = 60_000) {
      let timer: NodeJS.Timeout | undefined;
      const hung = new Promise<never>((_, reject) => {
        timer = setTimeout(() => {
          child.kill("SIGKILL");
          reject(new Error(`headwater ${args.join(" ")} did not exit within ${timeoutMs} ms\nstdout:\n${out}\nstderr:\n${err}`));
        }, timeoutMs);
      });
      try {
        const code = await Promise.race([exited, hung]);
        return { code, stdout: out, stderr: err };
      } finally {
        clearTimeout(timer);
      }
    },
    kill(signal) {
      child.kill(signal);
    },
    killGroup(signal) {
      if (!opts.ownGroup || child.pid === undefined) throw new Error("killGroup needs ownGroup");
      process.kill(-child.pid, signal);
    },
  };
}

/** Polls `check` until it returns a value other than undefined. */
export async function eventually<T>(check: () => Promise<T | undefined> | T | undefined, timeoutMs = 30_000, what = "condition"): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await check();
    if (v !== undefined) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** Parses stdout as newline-delimited JSON: every line must be one JSON value. */
export function ndjson(stdout: string): unknown[] {
  return stdout
    .split("\n")
    .filter((l) => l !== "")
    .map((l) => JSON.parse(l) as unknown);
}

/** Sends one JSON request to an HTTP source's endpoint. */
export async function post(endpoint: string, body: unknown): Promise<void> {
  const res = await fetch(endpoint, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
  if (!res.ok) throw new Error(`POST ${endpoint}: ${res.status} ${await res.text()}`);
}

/** The connection flags for a test server and key. */
export const flags = (baseUrl: string, key: string) => ["--api-url", baseUrl, "--api-key", key];

/** One clear line on stderr, no stack trace. */
export function oneLine(stderr: string): string {
  const lines = stderr.split("\n").filter((l) => l.trim() !== "");
  if (lines.length !== 1) throw new Error(`expected one line on stderr, got ${lines.length}:\n${stderr}`);
  if (/\n\s+at /.test(stderr)) throw new Error(`stack trace on stderr:\n${stderr}`);
  return lines[0]!;
}
