// The build: the server, the `headwater` CLI and the web host, bundled by esbuild into dist/js/
// as plain JavaScript, so nothing compiles TypeScript at run time. `npm install` runs it
// (`prepare`); `npm run build` runs it by hand; `npm start`, `npm test`, `npm run server` and the
// `headwater` bin call ensureBuilt(), which rebuilds only when the build is missing or stale.
//
// Stale means: an input esbuild read (our sources; for dependencies, npm's lock files) has another
// mtime or size than when the build was made. The check reads one manifest and stats each input
// (a few hundred stat calls, about 2 ms), cheap enough for every CLI call; this file imports
// esbuild only when it actually builds.
//
// Layout (one esbuild run, with code splitting, so the three share chunks and every command of
// the CLI loads only what it imports; see cli/program.ts):
//   dist/js/server.mjs  the API server            (npm run server, headwater server, the dashboard)
//   dist/js/cli.mjs     the headwater CLI         (cli/bin.mjs imports it)
//   dist/js/web.mjs     the dashboard's web host  (npm start in web mode)
//   dist/js/chunks/     shared and lazily loaded code
//   dist/js/manifest.json  the inputs' mtimes and sizes, written last
// Files loaded by path at run time (the sandbox's .cjs, built-in components, the checkpoint and
// search index workers) stay where they are in the source tree: see shared/app-paths.ts.
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
export const OUT_DIR = path.join(root, "dist", "js");
const MANIFEST = path.join(OUT_DIR, "manifest.json");
const LOCK = path.join(root, "dist", ".js-build.lock");
const MANIFEST_VERSION = 1;

const ENTRIES = ["server", "cli", "web"];

/**
 * Inputs that are not in esbuild's metafile but change the output: this script, the package
 * manifest, and npm's lock files standing for everything under node_modules (npm rewrites
 * node_modules/.package-lock.json on every install that changes a package).
 */
const EXTRA_INPUTS = ["scripts/build.mjs", "package.json", "package-lock.json", "node_modules/.package-lock.json"];

/**
 * zod's 50 locale message tables are ~45 % of its code, and every process that loads zod would
 * compile them; only English is used (classic zod's default, and what shared/zod.ts installs for
 * zod/mini). `z.locales` then holds `en` alone.
 */
const zodEnglishOnly = {
  name: "zod-english-only",
  setup(b) {
    b.onResolve({ filter: /\/locales\/index\.js$/ }, (args) =>
      /[\\/]node_modules[\\/]zod[\\/]/.test(args.importer) ? { path: path.join(path.dirname(args.importer), args.path), namespace: "zod-locales" } : undefined,
    );
    b.onLoad({ filter: /.*/, namespace: "zod-locales" }, (args) => ({
      contents: `export { default as en } from "./en.js";`,
      resolveDir: path.dirname(args.path),
      loader: "js",
    }));
  },
};

/** Why the build must be (re)made, or null when it is up to date. */
export function staleReason() {
  let manifest;
  try {
    manifest = JSON.parse(fs.readFileSync(MANIFEST, "utf8"));
  } catch {
    return "no build yet";
  }
  if (manifest.version !== MANIFEST_VERSION) return "the build layout changed";
  for (const name of ENTRIES) {
    if (!fs.existsSync(path.join(OUT_DIR, `${name}.mjs`))) return `dist/js/${name}.mjs is missing`;
  }
  for (const [file, [mtimeMs, size]] of Object.entries(manifest.inputs)) {
    const st = fs.statSync(`${root}/${file}`, { throwIfNoEntry: false });
    if (!st) {
      if (mtimeMs === null) continue;
      return `${file} was removed`;
    }
    if (st.mtimeMs !== mtimeMs || st.size !== size) return `${file} changed`;
  }
  return null;
}

function inputStamp(file) {
  const st = fs.statSync(path.join(root, file), { throwIfNoEntry: false });
  return st ? [st.mtimeMs, st.size] : [null, null];
}

/** Writes a file whole or not at all: a process starting meanwhile never reads half of it. */
function writeAtomic(file, contents) {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const tmp = `${file}.${process.pid}.tmp`;
  fs.writeFileSync(tmp, contents);
  fs.renameSync(tmp, file);
}

/**
 * Three esbuild runs, every dependency bundled but those below: as packages, Node would resolve,
 * read and compile some hundreds of their files at every start (fastify and its plugins, zod),
 * which cost more than compiling one file of the same code.
 * - better-sqlite3 (both majors, see shared/sqlite-native.ts): native addons; esbuild: a native binary; chokidar: ES-only, loaded by `dev`
 *   alone; pg-native: pg's optional native driver, not installed.
 * The CLI is split: each command's module is its own chunk, loaded when that command runs (see
 * cli/program.ts), with the chunks they share.
 */
const EXTERNAL = ["better-sqlite3", "better-sqlite3-napi", "esbuild", "chokidar", "pg-native", "electron", "electron-store", "vite"];
const TARGETS = [
  { entryPoints: { cli: "cli/main.ts" }, splitting: true },
  { entryPoints: { server: "server/main.ts" } },
  { entryPoints: { web: "electron/web/main.ts" } },
];

const COMMON = {
  absWorkingDir: root,
  outdir: OUT_DIR,
  entryNames: "[name]",
  chunkNames: "chunks/[name]-[hash]",
  outExtension: { ".js": ".mjs" },
  bundle: true,
  format: "esm",
  platform: "node",
  target: "node20",
  // CommonJS files of ours (server/net/address-policy.cjs) call require(); give each ES file one.
  banner: { js: "import { createRequire as __hwCreateRequire } from 'node:module'; const require = __hwCreateRequire(import.meta.url);" },
  external: EXTERNAL,
  // Whitespace and syntax only: less to read and parse at start, names kept for stack traces.
  minifyWhitespace: true,
  minifySyntax: true,
  plugins: [zodEnglishOnly],
  sourcemap: "linked",
  metafile: true,
  write: false,
  logLevel: "warning",
};

/** Runs esbuild and writes dist/js. Returns the output files' paths. */
export async function build() {
  const { build: esbuild } = await import("esbuild");
  const started = Date.now();
  const results = await Promise.all(TARGETS.map((t) => esbuild({ ...COMMON, ...t })));

  const inputs = {};
  for (const r of results) {
    for (const file of Object.keys(r.metafile.inputs)) {
      if (!file.includes("node_modules/")) inputs[file] = null;
    }
  }
  for (const file of EXTRA_INPUTS) inputs[file] = null;
  for (const file of Object.keys(inputs)) inputs[file] = inputStamp(file);
  // A file edited while esbuild ran may have been read before the edit: stamp it as unknown, so
  // the next check rebuilds.
  for (const [file, stamp] of Object.entries(inputs)) {
    if (stamp[0] !== null && stamp[0] >= started) inputs[file] = [-1, -1];
  }

  // Chunks first, entries after, the manifest last: whoever sees a new entry finds its chunks.
  const isChunk = (f) => f.path.includes(`${path.sep}chunks${path.sep}`);
  const outputs = results.flatMap((r) => r.outputFiles).sort((a, b) => Number(isChunk(b)) - Number(isChunk(a)));
  for (const f of outputs) writeAtomic(f.path, f.contents);
  removeOldChunks(new Set(outputs.map((f) => f.path)));
  writeAtomic(MANIFEST, JSON.stringify({ version: MANIFEST_VERSION, inputs }));
  return outputs.map((f) => f.path);
}

/**
 * Chunks of earlier builds that this one no longer references. Names carry a content hash, so a
 * CLI command started just before the rebuild may still import its old ones: remove only those
 * older than ten minutes.
 */
function removeOldChunks(current) {
  const dir = path.join(OUT_DIR, "chunks");
  for (const name of fs.readdirSync(dir)) {
    const file = path.join(dir, name);
    if (current.has(file)) continue;
    const st = fs.statSync(file, { throwIfNoEntry: false });
    if (st && Date.now() - st.mtimeMs > 10 * 60_000) fs.rmSync(file, { force: true });
  }
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/**
 * Builds if the build is missing or stale (or `force`). `log` gets one line when a build
 * happens. Concurrent callers (parallel test files, two CLI calls) wait for one build.
 */
export async function ensureBuilt({ log = () => {}, force = false } = {}) {
  if (!force && staleReason() === null) return;
  fs.mkdirSync(path.dirname(LOCK), { recursive: true });
  for (;;) {
    try {
      fs.mkdirSync(LOCK);
      break;
    } catch (err) {
      if (err.code !== "EEXIST") throw err;
      // Someone else is building; a lock older than 2 minutes is left over from a crash.
      const age = Date.now() - (fs.statSync(LOCK, { throwIfNoEntry: false })?.mtimeMs ?? Date.now());
      if (age > 120_000) fs.rmSync(LOCK, { recursive: true, force: true });
      await sleep(100);
      if (!force && !fs.existsSync(LOCK) && staleReason() === null) return;
    }
  }
  try {
    const reason = force ? "asked to" : staleReason();
    if (reason !== null) {
      log(`building dist/js (${reason})...`);
      await build();
    }
  } finally {
    fs.rmSync(LOCK, { recursive: true, force: true });
  }
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const started = performance.now();
  await ensureBuilt({ force: !process.argv.includes("--if-stale"), log: (m) => process.stdout.write(`${m}\n`) });
  process.stdout.write(`dist/js is up to date (${Math.round(performance.now() - started)} ms)\n`);
}
