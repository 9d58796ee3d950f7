#!/usr/bin/env node
/**
 * `npm start`: the dashboard. Builds what is missing or stale (dist/js: the server, CLI and web
 * host, see build.mjs; the renderer), then opens the Electron app if its binary is installed and
 * a display is available; otherwise (or if Electron fails to start) runs web mode
 * (`electron/web/main.ts`, built into dist/js/web.mjs), says why, prints `dashboard at <url>` and tries to open a
 * browser. Either way the Local connection starts the embedded server, with example sources.
 *
 *   npm start -- --web     always use web mode
 *
 * Nothing here downloads anything: the Electron binary is only looked for, never fetched.
 */
import { spawn, spawnSync } from "node:child_process";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { ensureBuilt, OUT_DIR } from "./build.mjs";
import { ensureRendererBuilt } from "./build-renderer.mjs";
import { findElectron } from "./electron-binary.mjs";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const say = (line) => process.stdout.write(`headwater: ${line}\n`);

function hasDisplay() {
  return process.platform !== "linux" || Boolean(process.env.DISPLAY || process.env.WAYLAND_DISPLAY);
}

/** Best effort: opens the URL in the user's browser; silent when there is no way to. */
function openBrowser(url) {
  if (!hasDisplay() || process.env.HEADWATER_NO_BROWSER) return;
  const cmd =
    process.platform === "darwin" ? "open" : process.platform === "win32" ? "explorer.exe" : "xdg-open";
  if (
    process.platform === "linux" &&
    spawnSync("sh", ["-c", "command -v xdg-open"], { stdio: "ignore" }).status !== 0
  )
    return;
  try {
    const child = spawn(cmd, [url], { stdio: "ignore", detached: true });
    child.on("error", () => undefined);
    child.unref();
  } catch {
    // No browser to open: the URL is printed anyway.
  }
}

/** Runs a child until it exits, forwarding Ctrl-C / SIGTERM; resolves with its exit code. */
function runForwarding(child) {
  const forward = (signal) => child.kill(signal);
  process.on("SIGINT", forward);
  process.on("SIGTERM", forward);
  return new Promise((resolve) => {
    child.on("exit", (code, signal) => {
      process.off("SIGINT", forward);
      process.off("SIGTERM", forward);
      resolve(code ?? (signal ? 1 : 0));
    });
  });
}

async function runElectron(exe) {
  const { buildElectron } = await import("../electron/build.mjs");
  const { main } = await buildElectron();
  const args = [main];
  if (process.getuid?.() === 0) {
    // Chromium refuses to run its sandbox as root (containers): say so rather than fail.
    say("running as root: starting Electron with --no-sandbox (run as a normal user to keep Chromium's sandbox)");
    args.unshift("--no-sandbox");
  }
  say("opening the Electron app");
  const started = Date.now();
  const child = spawn(exe, args, { cwd: root, stdio: ["ignore", "inherit", "pipe"] });
  let stderr = "";
  child.stderr.on("data", (c) => {
    stderr += c.toString();
    process.stderr.write(c);
  });
  const failedToStart = await new Promise((resolve) => {
    child.once("error", (err) => {
      stderr += String(err);
      resolve(true);
    });
    child.once("exit", (code) => resolve(code !== 0 && Date.now() - started < 15_000));
    // Still running after 15 s: it started.
    setTimeout(() => resolve(false), 15_000).unref();
  });
  if (failedToStart) {
    const last = stderr.trim().split("\n").slice(-1)[0] ?? "";
    return { fallback: `Electron could not start${last ? ` (${last.slice(0, 200)})` : ""}` };
  }
  return { code: await runForwarding(child) };
}

async function runWeb() {
  const child = spawn(process.execPath, [path.join(OUT_DIR, "web.mjs")], {
    cwd: root,
    stdio: ["ignore", "pipe", "inherit"],
  });
  let buf = "";
  child.stdout.on("data", (chunk) => {
    process.stdout.write(chunk);
    buf += chunk.toString();
    const m = /dashboard at (http:\/\/\S+)/.exec(buf);
    if (m) {
      buf = "";
      openBrowser(m[1]);
    }
  });
  return runForwarding(child);
}

async function main() {
  await ensureBuilt({ log: say });
  await ensureRendererBuilt({ log: say });
  const forceWeb = process.argv.includes("--web");
  if (!forceWeb) {
    const electron = findElectron();
    if (electron.exe) {
      const result = await runElectron(electron.exe);
      if (result.fallback === undefined) process.exit(result.code);
      say(`${result.fallback}: using web mode instead`);
    } else {
      say(
        `Electron cannot start here: ${electron.reason}. Using web mode: the same dashboard in your browser.`,
      );
    }
  }
  process.exit(await runWeb());
}

main().catch((err) => {
  process.stderr.write(`headwater: cannot start the dashboard: ${err?.stack ?? err}\n`);
  process.exit(1);
});
