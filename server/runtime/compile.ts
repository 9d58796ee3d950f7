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
  return { code: routeInterop(code), packages: findPackageRequires(code) };
}

/** The parameter through which the sandbox's loader gives each module its interop helpers (sandbox/interop.cjs). */
export const INTEROP_PARAM = "__headwaterInterop";

const SUCRASE_HELPERS: Array<[string, string]> = [
  ["_interopRequireDefault", "importDefault"],
  ["_interopRequireWildcard", "importStar"],
];

/**
 * Sucrase's import helpers follow Babel (`__esModule` picks `.default`); Node gives an ES
 * module importing CommonJS its `module.exports`. A later declaration of the same function
 * wins (function declarations hoist), so appending ours routes every import through the
 * sandbox's interop, which knows where each value came from.
 */
function routeInterop(code: string): string {
  let tail = "";
  for (const [helper, ours] of SUCRASE_HELPERS) {
    if (code.includes(`function ${helper}(obj)`)) tail += `\nfunction ${helper}(obj) { return ${INTEROP_PARAM}.${ours}(obj); }`;
  }
  return code + tail;
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

/**
 * Normalises a module's path relative to the main file's folder (`./app.mjs`,
 * `../common/x.mjs`) to its key in the files map. Leading `..` segments are kept: a file
 * above the main file's folder is a different file from its namesake below it
 * (`../common/constants.mjs` is not `common/constants.mjs`). sandbox/loader.cjs resolves
 * imports with the same rule.
 */
export function normaliseRelative(p: string): string {
  const out: string[] = [];
  for (const seg of p.replace(/\\/g, "/").split("/")) {
    if (seg === "" || seg === ".") continue;
    if (seg === ".." && out.length > 0 && out[out.length - 1] !== "..") out.pop();
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
