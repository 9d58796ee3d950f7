// @ts-check
/**
 * Inside the sandbox: a `data_store` prop's object (decisions.md "Workflow triggers, environment
 * variables and data stores"). Unlike `this.db` (a snapshot sent with the run), each call is a
 * request to the server over the worker's IPC channel (`call` -> `reply`), answered when the
 * server has done it: what a call said it wrote is in the database, whatever happens next, and
 * increments from many runs at once add up exactly (the server does each in one statement).
 * The server checks on every call that the store is the run's owner's.
 */
"use strict";

/** @type {(msg: any) => void} */
let sendCall = () => {
  throw new Error("data stores are not available here");
};
/** @type {() => string | null} */
let requestId = () => null;
let nextCall = 0;
/** @type {Map<number, {resolve: (v: unknown) => void, reject: (e: Error) => void}>} */
const waiting = new Map();

/**
 * The worker's channel: how to send a call, and which request is being served (the host answers
 * only calls of the request it is serving).
 * @param {(msg: any) => void} send @param {() => string | null} current
 */
function configure(send, current) {
  sendCall = send;
  requestId = current;
}

/** A `reply` from the host. @param {any} msg */
function onReply(msg) {
  const w = waiting.get(msg.call);
  if (!w) return;
  waiting.delete(msg.call);
  if (msg.error) {
    const err = new Error(String(msg.error.message));
    if (typeof msg.error.code === "string") /** @type {any} */ (err).code = msg.error.code;
    w.reject(err);
  } else w.resolve(msg.value);
}

/** @param {string} op @param {Record<string, unknown>} args @returns {Promise<any>} */
function call(op, args) {
  const id = requestId();
  if (id === null) return Promise.reject(new Error(`data store ${op}: called after the run ended`));
  return new Promise((resolve, reject) => {
    const n = ++nextCall;
    waiting.set(n, { resolve, reject });
    try {
      sendCall({ t: "call", id, call: n, op, args });
    } catch (e) {
      waiting.delete(n);
      reject(e);
    }
  });
}

/**
 * A value as JSON crosses the channel (a Date becomes its ISO string, as JSON.stringify does);
 * undefined stays undefined. @param {unknown} value @param {string} what
 */
function asJson(value, what) {
  if (value === undefined) return undefined;
  const text = JSON.stringify(value);
  if (text === undefined) throw new TypeError(`${what}: the value is not JSON`);
  return JSON.parse(text);
}

/** @param {unknown} key */
const keyOf = (key) => String(key);

/**
 * The store's object, as the hosted service's: all methods are async.
 * @param {string} storeId
 */
function dataStore(storeId) {
  const store = {
    /** @param {unknown} key */
    get: async (key) => {
      // `{value}` when the key is there (a stored null is null), null when it is not.
      const found = await call("get", { store: storeId, key: keyOf(key) });
      return found ? found.value : undefined;
    },
    /** @param {unknown} key */
    has: async (key) => Boolean(await call("has", { store: storeId, key: keyOf(key) })),
    /** @param {unknown} key @param {unknown} value @param {{ttl?: number | null}} [opts] */
    set: async (key, value, opts) => {
      const v = asJson(value, `set("${keyOf(key)}")`);
      if (v === undefined) throw new TypeError(`set("${keyOf(key)}"): the value is undefined (use delete)`);
      await call("set", { store: storeId, key: keyOf(key), value: v, ttl: opts?.ttl ?? null });
    },
    /** @param {unknown} key @param {number | null} ttl seconds; null: never expires */
    setTtl: (key, ttl) => call("setTtl", { store: storeId, key: keyOf(key), ttl: ttl ?? null }),
    /** @param {unknown} key */
    delete: (key) => call("delete", { store: storeId, key: keyOf(key) }),
    keys: async () => (await entries(storeId)).map((e) => e[0]),
    entries: () => entries(storeId),
    clear: () => call("clear", { store: storeId }),
    /** The new value; an absent key counts from 0. @param {unknown} key @param {number} [by] */
    increment: (key, by = 1) => call("increment", { store: storeId, key: keyOf(key), by }),
    /**
     * Sets `value` only if the key holds `expected` (undefined: only if it is absent); whether it did.
     * @param {unknown} key @param {unknown} expected @param {unknown} value
     */
    compareAndSet: (key, expected, value) =>
      call("compareAndSet", {
        store: storeId,
        key: keyOf(key),
        ...(expected === undefined ? {} : { expected: asJson(expected, "compareAndSet") }),
        value: asJson(value, "compareAndSet"),
      }),
    async *[Symbol.asyncIterator]() {
      for (const entry of await entries(storeId)) yield entry;
    },
  };
  Object.defineProperty(store, "id", { value: storeId, enumerable: true });
  return store;
}

/** Every live record as [key, value], in key order, read a page at a time. @param {string} storeId */
async function entries(storeId) {
  /** @type {Array<[string, unknown]>} */
  const out = [];
  /** @type {string | undefined} */
  let after;
  for (;;) {
    /** @type {{rows: Array<{key: string, value: unknown}>, more: boolean}} */
    const page = await call("page", { store: storeId, ...(after === undefined ? {} : { after }) });
    for (const r of page.rows) out.push([r.key, r.value]);
    if (!page.more || page.rows.length === 0) return out;
    after = page.rows[page.rows.length - 1].key;
  }
}

/** The store a configured prop names: `"ds_..."` or `{id: "ds_..."}`. @param {unknown} configured */
function storeIdOf(configured) {
  if (typeof configured === "string") return configured;
  if (
    configured &&
    typeof configured === "object" &&
    typeof (/** @type {any} */ (configured).id) === "string"
  )
    return /** @type {any} */ (configured).id;
  return undefined;
}

module.exports = { configure, onReply, dataStore, storeIdOf };
