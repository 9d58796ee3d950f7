/**
 * Host side of the platform shim: the npm libraries it is built on, taken from the server's
 * own node_modules, and the folders the sandbox must be able to read for them.
 *
 * PLATFORM_SHIM_READ_PATHS is THE list to mount read-only in the worker (permission-model
 * `--allow-fs-read`, bubblewrap binds): each library's package folder and those of its
 * dependencies, as real paths (symlinks resolved). Nothing else of node_modules is readable.
 * PLATFORM_SHIM_ENTRIES is what the worker requires them by (absolute entry files, so it never
 * searches node_modules by name).
 */
import fs from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";

/** The libraries the shim uses: axios for `axios($, config)`, mime-types for file metadata. */
const LIBRARIES = ["axios", "mime-types"] as const;

const requireHere = createRequire(import.meta.url);

/** A package's folder as seen from `fromDir`, the way Node looks it up (node_modules upwards). */
function packageDir(name: string, fromDir: string): string | undefined {
  for (let dir = fromDir; ; dir = path.dirname(dir)) {
    const candidate = path.join(dir, "node_modules", name);
    if (fs.existsSync(path.join(candidate, "package.json"))) return fs.realpathSync(candidate);
    if (path.dirname(dir) === dir) return undefined;
  }
}

/** The folders of `roots` and of everything they depend on, transitively. */
function closure(roots: readonly string[]): string[] {
  const seen = new Set<string>();
  const visit = (dir: string) => {
    if (seen.has(dir)) return;
    seen.add(dir);
    const pkg = JSON.parse(fs.readFileSync(path.join(dir, "package.json"), "utf8")) as {
      dependencies?: Record<string, string>;
      optionalDependencies?: Record<string, string>;
    };
    for (const dep of Object.keys({ ...pkg.dependencies, ...pkg.optionalDependencies })) {
      const found = packageDir(dep, dir);
      if (found) visit(found);
    }
  };
  for (const root of roots) visit(root);
  return [...seen].sort();
}

function entries(): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of LIBRARIES) out[name] = fs.realpathSync(requireHere.resolve(name));
  return out;
}

/** Library name → absolute entry file, for the worker (passed to platform/modules.cjs). */
export const PLATFORM_SHIM_ENTRIES: Readonly<Record<string, string>> = Object.freeze(entries());

/** Folders the sandbox needs read access to for the platform shim's libraries (see above). */
export const PLATFORM_SHIM_READ_PATHS: readonly string[] = Object.freeze(
  closure(LIBRARIES.map((name) => packageDir(name, path.dirname(PLATFORM_SHIM_ENTRIES[name]!))!)),
);
