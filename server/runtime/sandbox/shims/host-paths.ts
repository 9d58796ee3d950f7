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

/**
 * The libraries the shim uses: axios for `axios($, config)`, mime-types for file metadata
 * (a list of package names, for a mount list that takes names and finds their dependencies).
 */
export const PLATFORM_SHIM_LIBRARIES = ["axios", "mime-types"] as const;
const LIBRARIES = PLATFORM_SHIM_LIBRARIES;

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

/**
 * axios is a dependency of the server; mime-types comes with it (form-data's), so it is looked
 * for beside axios' own dependencies too. A library that cannot be found is left out: the shim
 * then says so when a component calls what needs it (file metadata just has no content type).
 */
function entries(): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of LIBRARIES) {
    const from = [requireHere, ...Object.values(out).map((entry) => createRequire(entry))];
    for (const req of from) {
      try {
        out[name] = fs.realpathSync(req.resolve(name));
        break;
      } catch {
        // Not reachable from here; try the next place.
      }
    }
  }
  return out;
}

/** Library name → absolute entry file, for the worker (passed to platform/modules.cjs). */
export const PLATFORM_SHIM_ENTRIES: Readonly<Record<string, string>> = Object.freeze(entries());

/** Folders the sandbox needs read access to for the platform shim's libraries (see above). */
export const PLATFORM_SHIM_READ_PATHS: readonly string[] = Object.freeze(
  closure(
    Object.entries(PLATFORM_SHIM_ENTRIES)
      .map(([name, entry]) => packageDir(name, path.dirname(entry)))
      .filter((dir): dir is string => dir !== undefined),
  ),
);
