// Builds the dashboard renderer (Vite, into dist/renderer) when the build is missing or older
// than its sources. Used by `npm start`, `npm run web` and the e2e harness. A lock directory keeps
// two concurrent callers (parallel test files) from building over each other.
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

// The project root, found upwards: this file also runs bundled into dist/js/web.mjs.
function findRoot(dir) {
  while (!fs.existsSync(path.join(dir, "package.json"))) dir = path.dirname(dir);
  return dir;
}
const root = findRoot(path.dirname(fileURLToPath(import.meta.url)));

function newestMtime(entry) {
  let newest = 0;
  if (!fs.existsSync(entry)) return 0;
  const st = fs.statSync(entry);
  if (!st.isDirectory()) return st.mtimeMs;
  for (const name of fs.readdirSync(entry)) {
    if (name === "node_modules" || name.startsWith(".")) continue;
    newest = Math.max(newest, newestMtime(path.join(entry, name)));
  }
  return newest;
}

/** True when dist/renderer/index.html is missing or older than what it is built from. */
export function rendererIsStale() {
  const index = path.join(root, "dist", "renderer", "index.html");
  if (!fs.existsSync(index)) return true;
  const built = fs.statSync(index).mtimeMs;
  const sources = ["renderer", "shared", "vite.config.ts", "package.json"].map((p) => newestMtime(path.join(root, p)));
  return Math.max(...sources) > built;
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/**
 * Builds the renderer if needed. `log` receives one line when a build happens.
 * Returns the build directory.
 */
export async function ensureRendererBuilt({ log = () => {}, force = false } = {}) {
  const dir = path.join(root, "dist", "renderer");
  if (!force && !rendererIsStale()) return dir;
  fs.mkdirSync(path.join(root, "dist"), { recursive: true });
  const lock = path.join(root, "dist", ".renderer-build.lock");
  for (;;) {
    try {
      fs.mkdirSync(lock);
      break;
    } catch (err) {
      if (err.code !== "EEXIST") throw err;
      // Someone else is building; a lock older than 3 minutes is left over from a crash.
      const age = Date.now() - fs.statSync(lock, { throwIfNoEntry: false })?.mtimeMs;
      if (age > 180_000) fs.rmSync(lock, { recursive: true, force: true });
      await sleep(250);
      if (!force && !rendererIsStale() && !fs.existsSync(lock)) return dir;
    }
  }
  try {
    if (force || rendererIsStale()) {
      log("building the dashboard (takes a few seconds)...");
      const { build } = await import("vite");
      await build({ configFile: path.join(root, "vite.config.ts"), logLevel: "warn" });
    }
  } finally {
    fs.rmSync(lock, { recursive: true, force: true });
  }
  return dir;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const dir = await ensureRendererBuilt({ log: (m) => process.stdout.write(`${m}\n`), force: process.argv.includes("--force") });
  process.stdout.write(`renderer built in ${path.relative(root, dir)}\n`);
}
