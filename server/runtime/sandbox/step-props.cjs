// @ts-check
/* eslint-disable @typescript-eslint/no-require-imports -- plain CommonJS by design: see worker.cjs */
/**
 * Inside the sandbox: `this` of a code step that declares props (decisions.md "Code steps with
 * props"). Each declared prop is bound by its type: an `app` prop becomes the app with `$auth`
 * (the account the server opened for this run) and its methods, a plain one its value or its
 * default. A new prop type is one binder here (and its check in workflows/step-props/).
 * The step's module is kept by the worker between runs, so `this` is a fresh object over it
 * each run: one run's values never reach another's.
 */
"use strict";
const { propEntries, isApp } = require("./describe-component.cjs");
const { appInstance } = require("./context.cjs");
const { dataStore, storeIdOf } = require("./data-store.cjs");

/** @typedef {(def: Record<string, any>, value: unknown) => unknown} Binder */

/** @type {Binder} */
const plain = (def, value) => (value === undefined || value === null ? def.default : value);

/** @type {Record<string, Binder>} */
const BINDERS = {
  app: (def, value) => appInstance(def, value),
  string: plain,
  integer: plain,
  boolean: plain,
  // The store's object: each call goes to the server, which checks the store is the run's owner's.
  data_store: (_def, value) => dataStore(storeIdOf(value) ?? ""),
};

/**
 * `this` for one run of a code step: the module itself when it declares no props (as before
 * props existed), else an object over it with each prop bound and its methods bound to it.
 * @param {Record<string, any>} mod @param {Record<string, unknown> | undefined} configured
 */
function stepThis(mod, configured) {
  if (!mod || typeof mod.props !== "object" || mod.props === null) return mod;
  /** @type {Record<string, any>} */
  const ctx = Object.create(mod);
  for (const [name, def] of propEntries(mod)) {
    const bind = BINDERS[isApp(def) ? "app" : String(def.type)] ?? plain;
    ctx[name] = bind(def, configured?.[name]);
  }
  for (const [name, fn] of Object.entries(mod.methods || {})) {
    if (typeof fn === "function") ctx[name] = fn.bind(ctx);
  }
  return ctx;
}

module.exports = { stepThis, BINDERS };
