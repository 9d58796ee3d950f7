/**
 * Where the files loaded by path at run time are (Node only; the renderer never imports this).
 *
 * The server, the CLI and the web host run bundled (scripts/build.mjs writes them to dist/js/),
 * so `import.meta.url` is wherever the bundle or chunk holding a module lands, not the module's
 * place in the source tree: a path computed relative to it breaks once bundled. Every such path
 * is made here instead, from APP_ROOT, which is found the same way from the source tree (vitest,
 * tsx) and from any file under dist/: the nearest folder above holding a package.json.
 *
 * The files named here are not bundled: child processes load them by path (the sandbox worker and
 * its preloads, the checkpoint and search index worker threads), bubblewrap mounts the sandbox
 * folder by path, and the built-in components are read as text.
 */
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

function findAppRoot(from: string): string {
  for (let dir = from; ; ) {
    if (fs.existsSync(path.join(dir, "package.json"))) return dir;
    const parent = path.dirname(dir);
    if (parent === dir) throw new Error(`no package.json above ${from}`);
    dir = parent;
  }
}

/** The project's root: package.json, node_modules, dist/. */
export const APP_ROOT = findAppRoot(path.dirname(fileURLToPath(import.meta.url)));

/** The sandbox's CommonJS files (worker.cjs and what it requires), run by path in child processes. */
export const SANDBOX_SOURCE_DIR = path.join(APP_ROOT, "server", "runtime", "sandbox");

/** The built-in registry components (.mjs), read as text and seeded at start. */
export const BUILTIN_COMPONENTS_DIR = path.join(APP_ROOT, "server", "components", "builtin");

/** The worker thread that checkpoints the SQLite WAL. */
export const CHECKPOINT_WORKER = path.join(APP_ROOT, "server", "store", "checkpoint-worker.cjs");

/** The worker thread that writes the SQLite search index. */
export const SEARCH_WORKER = path.join(APP_ROOT, "server", "store", "search", "search-worker.cjs");

/** The browser bridge's entry, bundled by the web host at launch. */
export const WEB_BRIDGE_ENTRY = path.join(APP_ROOT, "electron", "web", "client", "boot.ts");

/** The built server (scripts/build.mjs): what `npm run server`, the CLI and the dashboard run. */
export const serverEntry = (appRoot: string = APP_ROOT) => path.join(appRoot, "dist", "js", "server.mjs");
