/**
 * Turns a component's source (ESM or CommonJS, optionally TypeScript) into CommonJS the sandbox
 * can evaluate, and lists the npm packages it imports by name.
 *
 * This runs in the server process, but only *parses and rewrites* the text (sucrase); nothing
 * here executes component code. Evaluation happens only in the sandbox worker.
 */
import { builtinModules } from "node:module";
import { transform } from "sucrase";
import type { ComponentFiles } from "../services.js";

/** Modules the sandbox provides itself (see sandbox/shims). */
export const BUILTIN_SHIMS = new Set(["@pipedream/platform", "@pipedream/types"]);

export interface CompiledModule {
  /** CommonJS source. */
  code: string;
  /** Bare specifiers it requires (npm packages, possibly pinned `axios@0.19.2` or with a subpath). */
  packages: string[];
}

export interface CompiledBundle {
  main: CompiledModule;
  /** Relative modules by normalised path (`app.mjs`, `lib/util.js`). */
  files: Record<string, CompiledModule>;
  /** Every npm package spec required by any module, deduplicated. */
  packages: string[];
}

export class CompileError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "CompileError";
  }
}

/** Compiles one module; throws CompileError with the parser's message when it does not parse. */
export function compileModule(source: string, filename: string): CompiledModule {
  let code: string;
  try {
    code = transform(source, { transforms: ["imports"], filePath: filename }).code;
  } catch (jsError) {
    // Plain JS first: the TypeScript grammar misreads a few valid JS forms (`a < b > c`).
    try {
      code = transform(source, { transforms: ["imports", "typescript"], filePath: filename }).code;
    } catch {
      throw new CompileError(`${filename} does not parse: ${(jsError as Error).message}`);
    }
  }
  return { code, packages: findPackageRequires(code) };
}

const REQUIRE_CALL = /\brequire\(\s*(["'`])([^"'`\n]+)\1\s*\)/g;

/** Bare, non-builtin specifiers in `require("...")` calls (sucrase turns imports into these). */
export function findPackageRequires(code: string): string[] {
  const found = new Set<string>();
  for (const m of code.matchAll(REQUIRE_CALL)) {
    const spec = m[2]!;
    if (spec.startsWith(".") || spec.startsWith("/")) continue;
    if (spec.startsWith("node:") || builtinModules.includes(spec.split("/")[0]!)) continue;
    if (BUILTIN_SHIMS.has(packageName(spec))) continue;
    found.add(spec);
  }
  return [...found];
}

/** `@scope/name@1.2.3/sub` → `@scope/name`; `axios@0.19.2` → `axios`. */
export function packageName(spec: string): string {
  return parseSpecifier(spec).name;
}

export interface ParsedSpecifier {
  name: string;
  /** Version or range after `@`, or undefined for "latest". */
  version: string | undefined;
  /** Sub-path after the package (`/get` in `lodash/get`), or "". */
  subpath: string;
}

/** Parses an import specifier with an optional pinned version, as the hosted service accepts. */
export function parseSpecifier(spec: string): ParsedSpecifier {
  const scoped = spec.startsWith("@");
  const parts = spec.split("/");
  const head = scoped ? `${parts[0]}/${parts[1] ?? ""}` : parts[0]!;
  const rest = parts.slice(scoped ? 2 : 1);
  const at = head.indexOf("@", scoped ? 1 : 0);
  const name = at > 0 ? head.slice(0, at) : head;
  const version = at > 0 ? head.slice(at + 1) : undefined;
  return { name, version: version || undefined, subpath: rest.length ? `/${rest.join("/")}` : "" };
}

/** Normalises a relative import path (`./app.mjs`, `../x/./y.js`) to a key of the files map. */
export function normaliseRelative(p: string): string {
  const out: string[] = [];
  for (const seg of p.replace(/\\/g, "/").split("/")) {
    if (seg === "" || seg === ".") continue;
    if (seg === "..") out.pop();
    else out.push(seg);
  }
  return out.join("/");
}

/** Compiles the main module and every file beside it. */
export function compileBundle(code: string, files: ComponentFiles = {}): CompiledBundle {
  const main = compileModule(code, "component.mjs");
  const compiledFiles: Record<string, CompiledModule> = {};
  for (const [p, src] of Object.entries(files)) {
    const key = normaliseRelative(p);
    compiledFiles[key] = compileModule(src, key);
  }
  const packages = new Set(main.packages);
  for (const f of Object.values(compiledFiles)) for (const p of f.packages) packages.add(p);
  return { main, files: compiledFiles, packages: [...packages] };
}
