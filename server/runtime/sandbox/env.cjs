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
 * installed afresh before every run, so that what a run changed in it (or a replaced
 * `process.env`) is not what the next run reads. `process.env` is a plain object: the real
 * environment stays `{TMPDIR}` (os.tmpdir() reads that), and no variable reaches the C side.
 * A worker serves one owner only (pool.ts), so it only ever holds that owner's variables.
 */
"use strict";

const TMP_DIR = process.env.TMPDIR || "";
const hasOwn = Object.prototype.hasOwnProperty;
const defineProperty = Object.defineProperty;
const keysOf = Object.keys;

/** The variables this worker holds, and their key. */
let held = { key: "", vars: /** @type {Record<string, string>} */ ({}) };
/** The object installed as `process.env` (kept, so a reference taken at load time stays live). */
const env = /** @type {Record<string, string>} */ ({});

/** @param {Record<string, string>} target @param {string} name @param {string} value */
function put(target, name, value) {
  // defineProperty for `__proto__`: a variable of that name is a variable, not the object's prototype.
  if (name === "__proto__")
    defineProperty(target, name, { value, writable: true, enumerable: true, configurable: true });
  else target[name] = value;
}

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
  for (const name of keysOf(env)) delete env[name];
  if (TMP_DIR) env.TMPDIR = TMP_DIR;
  for (const name of keysOf(held.vars)) {
    if (hasOwn.call(held.vars, name)) put(env, name, String(held.vars[name]));
  }
  try {
    process.env = env;
  } catch {
    // A run made `process.env` unassignable: its owner's own code, in its owner's own worker.
  }
}

module.exports = { useEnv, resetEnv };
