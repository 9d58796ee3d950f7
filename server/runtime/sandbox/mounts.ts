/**
 * What a sandbox worker may read: ONE list, from which both layers are made — Node's permission
 * model (`--allow-fs-read`) in every mode, and the read-only bind mounts of the worker's file
 * system in namespaces mode (launch.ts). To let the worker read something more, add it here:
 * - SANDBOX_PACKAGES: packages the worker's own code requires from the server's node_modules
 *   (each is found as Node would find it from this folder, and mounted with its dependencies);
 * - readOnlyPaths(): the sandbox's code and the npm package cache.
 * The worker's temp dir (writable) and its egress directory are per worker: see process.ts.
 */
import fs from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { SANDBOX_SOURCE_DIR } from "../../../shared/app-paths.js";

export const SANDBOX_DIR = fs.realpathSync(SANDBOX_SOURCE_DIR);
/**
 * Packages the worker's own code requires (not components: theirs are in the npm cache): the
 * libraries the `@pipedream/platform` shim is built on (axios for `axios($, config)`,
 * mime-types for file metadata). Each is granted and mounted at its REAL path, with its
 * dependencies: the worker requires it by that path (sandboxPackageEntries), because the
 * permission model cannot grant a path through a symlinked node_modules (as in a git worktree)
 * without granting everything under the link.
 */
export const SANDBOX_PACKAGES: readonly string[] = ["axios", "mime-types"];

export interface ReadOnlyPath {
  /** The real path (no symlinks in it), mounted at the same place. */
  path: string;
  /** Symlinks on the way Node takes to it, to recreate inside the sandbox: link → its real target. */
  links: Array<{ link: string; target: string }>;
}

/**
 * The list by npm cache dir: it is the same for every worker of a server (the packages do not
 * move while it runs), and making it walks the packages' folders with synchronous calls, which
 * every worker's spawn paid (about 0.1 s of a server's start on the 2-core machine, profiled).
 */
const readOnlyByNpmDir = new Map<string, ReadOnlyPath[]>();

/** Everything the worker may read, besides its own temp dir. */
export function readOnlyPaths(npmDir: string): ReadOnlyPath[] {
  const known = readOnlyByNpmDir.get(npmDir);
  if (known) return known;
  const list = [SANDBOX_DIR, npmDir].map((p) => resolved(p));
  for (const name of SANDBOX_PACKAGES) list.push(...packageWithDependencies(name, SANDBOX_DIR));
  const paths = dedupe(list);
  // A cache dir not made yet resolves as far as it exists: remembered once it does.
  if (fs.existsSync(npmDir)) readOnlyByNpmDir.set(npmDir, paths);
  return paths;
}

/**
 * Name → real path of the entry file of each of SANDBOX_PACKAGES (as `require` from here would
 * load it), for the worker to require them by (shims/platform/modules.cjs).
 */
export function sandboxPackageEntries(): Record<string, string> {
  const requireHere = createRequire(path.join(SANDBOX_DIR, "worker.cjs"));
  const out: Record<string, string> = {};
  for (const name of SANDBOX_PACKAGES) out[name] = fs.realpathSync(requireHere.resolve(name));
  return out;
}

/** `p` with its symlinks resolved, and the links met on the way. */
export function resolved(p: string): ReadOnlyPath {
  const links: ReadOnlyPath["links"] = [];
  let current = path.parse(path.resolve(p)).root;
  const parts = path.resolve(p).split(path.sep).filter(Boolean);
  for (let i = 0; i < parts.length; i++) {
    const next = path.join(current, parts[i]!);
    let stat: fs.Stats;
    try {
      stat = fs.lstatSync(next);
    } catch {
      // Missing (a cache not made yet): nothing more to resolve.
      return { path: path.join(next, ...parts.slice(i + 1)), links };
    }
    if (stat.isSymbolicLink()) {
      const target = fs.realpathSync(next);
      links.push({ link: next, target });
      current = target;
    } else current = next;
  }
  return { path: current, links };
}

/** The folder Node would load `name` from, starting at `from`, then its dependencies, likewise. */
function packageWithDependencies(name: string, from: string, seen = new Set<string>()): ReadOnlyPath[] {
  const dir = findPackage(name, from);
  if (!dir) throw new Error(`the sandbox needs the package ${name}, which is not installed`);
  const entry = resolved(dir);
  if (seen.has(entry.path)) return [];
  seen.add(entry.path);
  const out = [entry];
  const manifest = JSON.parse(fs.readFileSync(path.join(entry.path, "package.json"), "utf8")) as {
    dependencies?: Record<string, string>;
  };
  for (const dep of Object.keys(manifest.dependencies ?? {})) {
    out.push(...packageWithDependencies(dep, entry.path, seen));
  }
  return out;
}

function findPackage(name: string, from: string): string | undefined {
  for (let dir = from; ; dir = path.dirname(dir)) {
    const candidate = path.join(dir, "node_modules", name);
    if (fs.existsSync(path.join(candidate, "package.json"))) return candidate;
    if (path.dirname(dir) === dir) return undefined;
  }
}

function dedupe(list: ReadOnlyPath[]): ReadOnlyPath[] {
  const byPath = new Map<string, ReadOnlyPath>();
  for (const p of list) if (!byPath.has(p.path)) byPath.set(p.path, p);
  return [...byPath.values()];
}
