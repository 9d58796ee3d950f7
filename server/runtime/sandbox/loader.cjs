// @ts-check
/* eslint-disable @typescript-eslint/no-require-imports -- plain CommonJS by design: see worker.cjs */
/**
 * The sandbox's module system: evaluates a compiled component bundle (CommonJS produced by
 * server/runtime/compile.ts) with a `require` that resolves
 *   - relative paths against the bundle's files map (never the disk),
 *   - Node builtins (the permission model decides what they may touch),
 *   - `@pipedream/platform` / `@pipedream/types` to our shim,
 *   - other bare names through the package directories the server prepared in its npm cache.
 *
 * Plain CommonJS with JSDoc on purpose: the worker runs under Node's permission model with
 * read access limited to this folder, the package cache and its temp dir, so it cannot load a
 * TypeScript loader from node_modules. See process.ts for the flags.
 */
"use strict";
const vm = require("node:vm");
const Module = require("node:module");
const path = require("node:path");
const interop = require("./interop.cjs");
const platform = require("./shims/platform.cjs");
const types = require("./shims/types.cjs");

/**
 * @typedef {{ code: string }} CompiledModule
 * @typedef {{ main: CompiledModule, files: Record<string, CompiledModule> }} Bundle
 * @typedef {Record<string, string>} PackageDirs  spec (as written) -> install directory
 */

/**
 * A module path relative to the main file's folder, normalised as compile.ts keys files:
 * leading `..` segments stay (`../common/x.mjs` is above the main file, not beside it).
 * @param {string} p
 */
function normalise(p) {
  /** @type {string[]} */
  const out = [];
  for (const seg of p.split("/")) {
    if (seg === "" || seg === ".") continue;
    if (seg === ".." && out.length > 0 && out[out.length - 1] !== "..") out.pop();
    else out.push(seg);
  }
  return out.join("/");
}

/** @param {string} spec */
function parseSpecifier(spec) {
  const scoped = spec.startsWith("@");
  const parts = spec.split("/");
  const head = scoped ? `${parts[0]}/${parts[1] ?? ""}` : parts[0];
  const rest = parts.slice(scoped ? 2 : 1);
  const at = head.indexOf("@", scoped ? 1 : 0);
  const name = at > 0 ? head.slice(0, at) : head;
  return { name, subpath: rest.length ? `/${rest.join("/")}` : "" };
}

// npm packages that require `@pipedream/platform` themselves get ours too: the vendor's package
// is never loaded here, even when the npm cache installed it as some package's dependency.
const SHIMS = { "@pipedream/platform": platform, "@pipedream/types": types };
const nodeLoad = /** @type {any} */ (Module)._load;
/** @type {any} */ (Module)._load = function load(/** @type {string} */ request, /** @type {unknown[]} */ ...rest) {
  if (Object.prototype.hasOwnProperty.call(SHIMS, request)) return SHIMS[/** @type {keyof typeof SHIMS} */ (request)];
  return nodeLoad.call(this, request, ...rest);
};

const MAIN = "\0main";
/** Must match INTEROP_PARAM in server/runtime/compile.ts. */
const INTEROP_PARAM = "__headwaterInterop";
const EXTENSIONS = ["", ".js", ".mjs", ".cjs", ".ts", ".json", "/index.js", "/index.mjs", "/index.ts"];

/**
 * Loads a bundle and returns its main module's value (the `export default` or `module.exports`).
 * @param {Bundle} bundle
 * @param {PackageDirs} packageDirs
 */
function loadBundle(bundle, packageDirs) {
  /** @type {Map<string, { exports: any }>} */
  const cache = new Map();
  // A virtual folder for the main file, deep enough that every `..` key stays inside
  // /component (file names only show in stack traces and __filename).
  const depth = Math.max(0, ...Object.keys(bundle.files).map((k) => k.split("/").filter((s) => s === "..").length));
  const root = ["/component", ...Array.from({ length: depth }, (_, i) => `_${i + 1}`)].join("/");

  /** @param {string} key @param {CompiledModule} mod */
  function evaluate(key, mod) {
    const cached = cache.get(key);
    if (cached) return cached.exports;
    const module = { exports: {} };
    cache.set(key, module);
    const filename = key === MAIN ? `${root}/index.mjs` : path.posix.join(root, key);
    if (key.endsWith(".json")) {
      module.exports = JSON.parse(mod.code);
      return module.exports;
    }
    const fn = vm.compileFunction(mod.code, ["exports", "require", "module", "__filename", "__dirname", INTEROP_PARAM], {
      filename,
    });
    const dir = key === MAIN ? "." : path.posix.dirname(key);
    fn.call(module.exports, module.exports, makeRequire(dir), module, filename, path.posix.dirname(filename), interop);
    return module.exports;
  }

  /** @param {string} dir */
  function makeRequire(dir) {
    /** @param {string} spec */
    return function require(spec) {
      if (typeof spec !== "string") throw new TypeError("require() expects a string");
      if (spec.startsWith("./") || spec.startsWith("../") || spec === "." || spec === "..") {
        const base = normalise(`${dir === "." ? "" : dir}/${spec}`);
        for (const ext of EXTENSIONS) {
          const key = normalise(base + ext);
          const mod = bundle.files[key];
          if (mod) return evaluate(key, mod);
        }
        throw moduleNotFound(spec, "it is not among the component's files");
      }
      if (spec.startsWith("/")) throw moduleNotFound(spec, "absolute paths are not allowed");
      if (spec.startsWith("node:") || Module.builtinModules.includes(spec.split("/")[0])) {
        return require_builtin(spec);
      }
      const { name, subpath } = parseSpecifier(spec);
      if (Object.prototype.hasOwnProperty.call(SHIMS, name)) return SHIMS[/** @type {keyof typeof SHIMS} */ (name)];
      const dir_ = packageDirs[spec];
      if (!dir_) throw moduleNotFound(spec, "the package was not prepared for this component");
      return interop.fromPackage(requirePackage(dir_, name, subpath));
    };
  }

  const value = evaluate(MAIN, bundle.main);
  return value && value.__esModule && "default" in value ? value.default : value;
}

/**
 * Node's require of an installed package. A package whose `exports` offer only an `import`
 * entry (ESM-only) is refused by require's resolution; its ES entry file is then required by
 * path, which gives its namespace (require(esm): on by default since Node 20.19 and 22.12, else
 * node-runtime.ts adds its flag).
 * @param {string} installDir @param {string} name @param {string} subpath
 */
function requirePackage(installDir, name, subpath) {
  const req = Module.createRequire(path.join(installDir, "package.json"));
  try {
    return req(name + subpath);
  } catch (e) {
    if (!e || /** @type {any} */ (e).code !== "ERR_PACKAGE_PATH_NOT_EXPORTED") throw e;
    const pkgDir = path.join(installDir, "node_modules", name);
    const entry = esEntry(JSON.parse(require("node:fs").readFileSync(path.join(pkgDir, "package.json"), "utf8")).exports, `.${subpath}`);
    if (!entry) throw e;
    return req(path.join(pkgDir, entry));
  }
}

/**
 * The file an `exports` map gives an ES import of `sub` (`.` or `./x`) under Node's
 * conditions; exact entries only (no `*` patterns).
 * @param {unknown} exportsField @param {string} sub @returns {string | undefined}
 */
function esEntry(exportsField, sub) {
  /** @param {unknown} target @returns {string | undefined} */
  const pick = (target) => {
    if (typeof target === "string") return target;
    if (Array.isArray(target)) {
      for (const t of target) {
        const found = pick(t);
        if (found) return found;
      }
      return undefined;
    }
    if (target && typeof target === "object") {
      for (const cond of ["node", "import", "default"]) {
        if (cond in target) {
          const found = pick(/** @type {any} */ (target)[cond]);
          if (found) return found;
        }
      }
    }
    return undefined;
  };
  if (typeof exportsField === "string" || Array.isArray(exportsField)) return sub === "." ? pick(exportsField) : undefined;
  if (!exportsField || typeof exportsField !== "object") return undefined;
  const keys = Object.keys(exportsField);
  if (keys.length > 0 && keys.every((k) => !k.startsWith("."))) return sub === "." ? pick(exportsField) : undefined;
  return pick(/** @type {any} */ (exportsField)[sub]);
}

/** @param {string} spec */
function require_builtin(spec) {
  return require(spec);
}

/** @param {string} spec @param {string} why */
function moduleNotFound(spec, why) {
  const err = new Error(`Cannot find module '${spec}': ${why}`);
  /** @type {any} */ (err).code = "MODULE_NOT_FOUND";
  return err;
}

module.exports = { loadBundle };
