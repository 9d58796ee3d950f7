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
const platform = require("./shims/platform.cjs");

/**
 * @typedef {{ code: string }} CompiledModule
 * @typedef {{ main: CompiledModule, files: Record<string, CompiledModule> }} Bundle
 * @typedef {Record<string, string>} PackageDirs  spec (as written) -> install directory
 */

/** @param {string} p */
function normalise(p) {
  /** @type {string[]} */
  const out = [];
  for (const seg of p.split("/")) {
    if (seg === "" || seg === ".") continue;
    if (seg === "..") out.pop();
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

const MAIN = "\0main";
const EXTENSIONS = ["", ".js", ".mjs", ".cjs", ".ts", ".json", "/index.js", "/index.mjs", "/index.ts"];

/**
 * Loads a bundle and returns its main module's value (the `export default` or `module.exports`).
 * @param {Bundle} bundle
 * @param {PackageDirs} packageDirs
 */
function loadBundle(bundle, packageDirs) {
  /** @type {Map<string, { exports: any }>} */
  const cache = new Map();

  /** @param {string} key @param {CompiledModule} mod */
  function evaluate(key, mod) {
    const cached = cache.get(key);
    if (cached) return cached.exports;
    const module = { exports: {} };
    cache.set(key, module);
    const filename = key === MAIN ? "/component/index.mjs" : `/component/${key}`;
    if (key.endsWith(".json")) {
      module.exports = JSON.parse(mod.code);
      return module.exports;
    }
    const fn = vm.compileFunction(mod.code, ["exports", "require", "module", "__filename", "__dirname"], {
      filename,
    });
    fn.call(module.exports, module.exports, makeRequire(path.posix.dirname(key)), module, filename, path.posix.dirname(filename));
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
      if (name === "@pipedream/platform" || name === "@pipedream/types") return platform;
      const dir_ = packageDirs[spec];
      if (!dir_) throw moduleNotFound(spec, "the package was not prepared for this component");
      return Module.createRequire(path.join(dir_, "package.json"))(name + subpath);
    };
  }

  const value = evaluate(MAIN, bundle.main);
  return value && value.__esModule && "default" in value ? value.default : value;
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
