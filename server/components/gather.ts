/**
 * A component's relative imports, gathered into `files` the way the runtime loads them: every
 * module the main file reaches through `./x` / `../x` imports, keyed by its path relative to the
 * main file's folder (`./app.mjs`, `../common/constants.mjs`). Where the modules come from is the
 * caller's: over HTTP for a component_url (fetch.ts), from a package folder for the vendor's npm
 * components (npm-registry/). One rule for both, so both load the same way.
 */
import path from "node:path";
import type { ComponentFiles } from "../services.js";

const RELATIVE_IMPORTS = [
  /\b(?:import|export)\s[^'"`;]*?\bfrom\s*(['"])(\.{1,2}\/[^'"]+)\1/g,
  /\bimport\s*(['"])(\.{1,2}\/[^'"]+)\1/g,
  /\bimport\s*\(\s*(['"])(\.{1,2}\/[^'"]+)\1\s*\)/g,
  /\brequire\s*\(\s*(['"])(\.{1,2}\/[^'"]+)\1\s*\)/g,
];

/** Relative specifiers a module imports, in order of appearance, without duplicates. */
export function relativeImports(code: string): string[] {
  const found = new Set<string>();
  for (const re of RELATIVE_IMPORTS) for (const m of code.matchAll(re)) found.add(m[2]!);
  return [...found];
}

/** What the loader tries after a specifier without the file's own extension (as the runtime does). */
export const EXTENSIONS = ["", ".js", ".mjs", ".cjs", ".ts", ".json", "/index.js", "/index.mjs", "/index.ts"];

/** A module found: where it is (for its own imports), its posix path, its code. */
export interface FoundModule<L> {
  at: L;
  path: string;
  code: string;
}

/**
 * Follows relative imports from the main module, breadth first. `resolve` finds the module a
 * specifier names (or throws); `tooMany` is thrown past `maxFiles` modules.
 */
export async function gatherModules<L>(
  main: FoundModule<L>,
  resolve: (from: FoundModule<L>, spec: string) => Promise<FoundModule<L>>,
  maxFiles: number,
  tooMany: () => Error,
): Promise<ComponentFiles> {
  const mainDir = path.posix.dirname(main.path);
  const files: ComponentFiles = {};
  const seen = new Set<string>([main.path]);
  const queue: Array<FoundModule<L>> = [main];
  while (queue.length > 0) {
    const from = queue.shift()!;
    for (const spec of relativeImports(from.code)) {
      const found = await resolve(from, spec);
      if (seen.has(found.path)) continue;
      seen.add(found.path);
      if (Object.keys(files).length >= maxFiles) throw tooMany();
      const rel = path.posix.relative(mainDir, found.path);
      files[rel.startsWith("..") ? rel : `./${rel}`] = found.code;
      queue.push(found);
    }
  }
  return files;
}
