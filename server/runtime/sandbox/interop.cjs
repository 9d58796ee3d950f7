// @ts-check
/* eslint-disable @typescript-eslint/no-require-imports -- plain CommonJS by design: see worker.cjs */
/**
 * npm interop inside the sandbox, as Node and the hosted service give it to components:
 *
 * - `require()` of an ESM-only package (node-fetch 3) gives its module namespace in Node; a
 *   component written `const fetch = require("node-fetch")` calls it. So a namespace whose
 *   default export is a function becomes that function, with the named exports reachable on
 *   it; any other namespace becomes an object with its named exports (and the default
 *   object's own properties under them). Both say `__esModule`, so `import x from` gets the
 *   default export and `import {y} from` the named one.
 * - `import x from "cjs-package"` gets `module.exports`, as in Node, even when the package
 *   says `__esModule` (TypeScript output): sucrase's helpers would pick `.default` instead,
 *   so compile.ts routes them here (importDefault / importStar), and the values CommonJS
 *   packages return are remembered to tell them from our own compiled modules.
 */
"use strict";
const { isModuleNamespaceObject } = require("node:util").types;

/** Values that came from an npm CommonJS package's `module.exports`. */
const fromCommonJs = new WeakSet();

/** @param {any} ns a module namespace */
function wrapNamespace(ns) {
  const def = ns.default;
  if (typeof def === "function") {
    return new Proxy(def, {
      get(target, key, receiver) {
        if (key === "__esModule") return true;
        if (key === "default") return def;
        if (key in ns) return ns[key];
        return Reflect.get(target, key, receiver);
      },
      has: (target, key) => key === "__esModule" || key in ns || key in target,
    });
  }
  /** @type {Record<string | symbol, unknown>} */
  const out = {};
  if (def && typeof def === "object") Object.assign(out, def);
  for (const key of Object.keys(ns)) out[key] = ns[key];
  Object.defineProperty(out, "__esModule", { value: true });
  return out;
}

/**
 * What `require(pkg)` returns in component code, given what Node's require returned.
 * @param {unknown} value
 */
function fromPackage(value) {
  if (isModuleNamespaceObject(value)) return wrapNamespace(value);
  if ((typeof value === "object" && value !== null) || typeof value === "function") fromCommonJs.add(value);
  return value;
}

/** `import x from ...`: `{default: x}` unless the module is ES (ours or a wrapped namespace). @param {any} m */
function importDefault(m) {
  return m && m.__esModule && !fromCommonJs.has(m) ? m : { default: m };
}

/** `import * as ns from ...`: a CommonJS module's own properties plus `default: module.exports`. @param {any} m */
function importStar(m) {
  if (m && m.__esModule && !fromCommonJs.has(m)) return m;
  /** @type {Record<string, unknown>} */
  const ns = {};
  if (m !== null && m !== undefined) for (const key of Object.keys(m)) ns[key] = m[key];
  ns.default = m;
  return ns;
}

module.exports = { fromPackage, importDefault, importStar };
