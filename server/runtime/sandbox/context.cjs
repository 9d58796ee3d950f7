// @ts-check
/* eslint-disable @typescript-eslint/no-require-imports -- plain CommonJS by design: see worker.cjs */
/**
 * Inside the sandbox: builds `this` for one invocation of a component's run or hook.
 * Props become values, methods are bound, app props expose their methods and `$auth`,
 * `this.db` works on a snapshot whose changes are sent back when the invocation ends,
 * `$emit` and `http.respond` are streamed to the host as they happen.
 */
"use strict";
const { propEntries, isApp, TIMER, HTTP } = require("./describe-component.cjs");
const { dataStore, storeIdOf } = require("./data-store.cjs");

/**
 * @typedef {object} InvocationIO
 * @property {(data: unknown, meta: Record<string, unknown>) => void} emit
 * @property {(response: Record<string, unknown>) => void} respond
 */

/** Limits per invocation: they keep one run from flooding the event store. */
const MAX_EMITS = 10_000;
const MAX_EVENT_BYTES = 1024 * 1024;
/** The longest channel name (decisions.md "Runs under faults"): a longer one is refused where it is given. */
const MAX_CHANNEL_LENGTH = 256;

/**
 * Refuses a channel name longer than MAX_CHANNEL_LENGTH, so that the run fails with a clear error
 * at the call instead of its results failing to store. @param {unknown} name @param {string} call
 */
function checkChannel(name, call) {
  if (typeof name === "string" && name.length > MAX_CHANNEL_LENGTH)
    throw new RangeError(`${call}: a channel name is at most ${MAX_CHANNEL_LENGTH} characters, not ${name.length}`);
}

/**
 * A synchronous key/value store over a snapshot. Values are JSON; `set(k, undefined)` deletes.
 * @param {Record<string, string>} snapshot key -> JSON text
 */
function createDb(snapshot) {
  const values = new Map(Object.entries(snapshot || {}));
  /** @type {Map<string, string | null>} */
  const changes = new Map();
  return {
    api: {
      /** @param {string} key */
      get(key) {
        const text = values.get(String(key));
        return text === undefined ? undefined : JSON.parse(text);
      },
      /** @param {string} key @param {unknown} value */
      set(key, value) {
        const k = String(key);
        if (value === undefined) {
          values.delete(k);
          changes.set(k, null);
          return;
        }
        const text = JSON.stringify(value);
        if (text === undefined) throw new TypeError(`db.set("${k}"): the value is not JSON`);
        values.set(k, text);
        changes.set(k, text);
      },
    },
    /** Changed keys: JSON text, or null for a deletion. */
    changes: () => Object.fromEntries(changes),
  };
}

/** Uniform status: the hosted service accepts `status: "404"`. @param {unknown} s */
function toStatus(s) {
  const n = typeof s === "string" ? Number(s.trim()) : typeof s === "number" ? s : 200;
  return Number.isInteger(n) && n >= 100 && n <= 599 ? n : 200;
}

/**
 * An app prop's instance: its methods bound to it, `$auth` from the configured value.
 * @param {Record<string, any>} app @param {unknown} configured
 */
function appInstance(app, configured) {
  /** @type {Record<string, any>} */
  const inst = { app: app.app };
  const cfg = configured && typeof configured === "object" ? /** @type {Record<string, any>} */ (configured) : {};
  inst.$auth = cfg.$auth && typeof cfg.$auth === "object" ? cfg.$auth : {};
  for (const [name, fn] of Object.entries(app.methods || {})) {
    if (typeof fn === "function") inst[name] = fn.bind(inst);
  }
  return inst;
}

/**
 * @param {Record<string, any>} component
 * @param {{ props: Record<string, unknown>, db: Record<string, string>, endpoint: string | null }} input
 * @param {InvocationIO} io
 */
function buildContext(component, input, io) {
  const db = createDb(input.db);
  let responded = false;
  const http = {
    endpoint: input.endpoint,
    /** @param {{status?: unknown, headers?: Record<string, unknown>, body?: unknown}} res */
    respond(res) {
      if (responded) return;
      responded = true;
      const r = res || {};
      const body = r.body === undefined ? "" : r.body;
      io.respond({ status: toStatus(r.status), headers: r.headers || {}, body });
    },
  };
  /** @type {Record<string, any>} */
  const ctx = {};
  for (const [name, def] of propEntries(component)) {
    const configured = input.props[name];
    if (isApp(def)) ctx[name] = appInstance(def, configured);
    else if (def.type === HTTP) ctx[name] = http;
    else if (def.type === "$.service.db") ctx[name] = db.api;
    else if (def.type === "data_store") ctx[name] = dataStore(storeIdOf(configured) ?? "");
    else if (def.type === TIMER) ctx[name] = configured ?? def.default;
    else ctx[name] = configured !== undefined ? configured : def.default;
  }
  if (!("db" in ctx)) ctx.db = db.api;
  if (!("http" in ctx)) ctx.http = http;
  let emitted = 0;
  /** @param {unknown} data @param {Record<string, unknown>} [meta] */
  ctx.$emit = (data, meta) => {
    if (++emitted > MAX_EMITS) throw new Error(`$emit: more than ${MAX_EMITS} events in one invocation`);
    const json = JSON.stringify(data === undefined ? null : data);
    if (json === undefined) throw new TypeError("$emit: the event is not JSON");
    if (json.length > MAX_EVENT_BYTES) throw new RangeError(`$emit: the event is ${json.length} bytes, more than ${MAX_EVENT_BYTES}`);
    if (meta && typeof meta === "object") checkChannel(meta.name, "$emit");
    io.emit(JSON.parse(json), meta && typeof meta === "object" ? meta : {});
  };
  for (const [name, fn] of Object.entries(component.methods || {})) {
    if (typeof fn === "function") ctx[name] = fn.bind(ctx);
  }
  return { ctx, dbChanges: db.changes, responded: () => responded };
}

module.exports = { buildContext, appInstance, checkChannel };
