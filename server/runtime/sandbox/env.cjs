// @ts-check
/**
 * Inside the sandbox: `process.env` as component code sees it. The worker is started with the
 * environment `{TMPDIR}` only (process.ts), so nothing of the server's environment is there to
 * begin with; each request then brings its owner's environment variables (decisions.md
 * "Workflow triggers, environment variables and data stores"), sent once per worker and named
 * by a key (`{key, vars}` the first time, `{key}` after: runtime/run-env.ts):
 *
 *   process.env = {TMPDIR, ...the owner's variables}
 *
 * as each run starts, whatever the run before did to it (changed, deleted or replaced it).
 * `process.env` is one object for the worker's life (a reference taken when a module loads stays
 * live): a proxy over a plain object, whose writes are noted, so that it is filled again only
 * after a run wrote to it or the variables changed (filling 200 variables costs ~0.1 ms; a run
 * costs about 1 ms in all). Values written are made strings, as Node's own `process.env` does.
 * The real environment stays `{TMPDIR}` (os.tmpdir() reads that); no variable reaches the C side.
 * A worker serves one owner only (pool.ts), so it only ever holds that owner's variables.
 */
"use strict";

const TMP_DIR = process.env.TMPDIR || "";
const hasOwn = Object.prototype.hasOwnProperty;
const defineProperty = Object.defineProperty;
const reflectDefine = Reflect.defineProperty;
const keysOf = Object.keys;

/** The variables this worker holds, and their key. */
let held = { key: "", vars: /** @type {Record<string, string>} */ ({}) };
/** The object behind `process.env`, and whether it holds exactly `held` (plus TMPDIR). */
const target = /** @type {Record<string, string>} */ ({});
let filledWith = /** @type {string | null} */ (null);
let written = true;

/** @param {Record<string, string>} obj @param {string} name @param {string} value */
function put(obj, name, value) {
  // defineProperty for `__proto__`: a variable of that name is a variable, not the object's prototype.
  if (name === "__proto__")
    defineProperty(obj, name, { value, writable: true, enumerable: true, configurable: true });
  else obj[name] = value;
}

const env = new Proxy(target, {
  set(t, name, value) {
    written = true;
    if (typeof name === "string") put(t, name, String(value));
    return true;
  },
  deleteProperty(t, name) {
    written = true;
    return delete t[/** @type {string} */ (name)];
  },
  defineProperty(t, name, desc) {
    written = true;
    return reflectDefine(t, name, desc);
  },
});

/**
 * Takes a request's `env` field: new variables when it carries them, else the key of those held.
 * A request without one (describing a component, a prop's options) runs with none.
 * @param {unknown} spec
 */
function useEnv(spec) {
  const s = /** @type {{ key?: unknown, vars?: unknown } | undefined} */ (spec);
  if (!s || typeof s.key !== "string" || s.key === "") held = { key: "", vars: {} };
  else if (s.vars && typeof s.vars === "object")
    held = { key: s.key, vars: /** @type {Record<string, string>} */ (s.vars) };
  else if (s.key !== held.key)
    throw new Error("internal: this worker was not sent the environment of its request");
  resetEnv();
}

/** Installs the held variables as `process.env`, undoing whatever the last run did to it. */
function resetEnv() {
  if (written || filledWith !== held.key) {
    for (const name of keysOf(target)) delete target[name];
    if (TMP_DIR) target.TMPDIR = TMP_DIR;
    for (const name of keysOf(held.vars)) {
      if (hasOwn.call(held.vars, name)) put(target, name, String(held.vars[name]));
    }
    filledWith = held.key;
    written = false;
  }
  try {
    process.env = env;
  } catch {
    // A run made `process.env` unassignable: its owner's own code, in its owner's own worker.
  }
}

/**
 * `process.env.PD_COMPONENT`: the source a run belongs to (undefined: none), set by the worker
 * itself, not noted as a run's write.
 * @param {string | undefined} id
 */
function setComponentId(id) {
  if (id !== undefined) target.PD_COMPONENT = id;
  else if (hasOwn.call(held.vars, "PD_COMPONENT")) target.PD_COMPONENT = String(held.vars.PD_COMPONENT);
  else delete target.PD_COMPONENT;
}

module.exports = { useEnv, resetEnv, setComponentId };
