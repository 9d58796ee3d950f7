// @ts-check
/**
 * Our own `@pipedream/platform` / `@pipedream/types` for the sandbox.
 *
 * Why a shim and not the package from npm: the real package pulls axios, io-ts, fp-ts and more
 * for a handful of helpers, would make *describing* any component that imports it depend on the
 * registry being reachable, and its helpers are small. The shim offers what components use:
 * the `define*` identity wrappers, `axios($, config)` (resolves to the response data, like the
 * original; built on the global fetch), `ConfigurationError` and the polling default.
 */
"use strict";

/** @template T @param {T} x @returns {T} */
const identity = (x) => x;

class ConfigurationError extends Error {
  /** @param {string} message */
  constructor(message) {
    super(message);
    this.name = "ConfigurationError";
  }
}

/**
 * @param {Record<string, any>} params
 */
function toQuery(params) {
  const qs = new URLSearchParams();
  for (const [k, v] of Object.entries(params || {})) {
    if (v === undefined || v === null) continue;
    if (Array.isArray(v)) for (const item of v) qs.append(k, String(item));
    else qs.append(k, typeof v === "object" ? JSON.stringify(v) : String(v));
  }
  const s = qs.toString();
  return s ? `?${s}` : "";
}

/**
 * axios-compatible request: `axios($, { url, method, params, headers, data, baseURL,
 * returnFullResponse, timeout })`. Throws on a non-2xx status with the response attached.
 * @param {any} _$ the step or source context (unused: kept for the original signature)
 * @param {any} config
 */
async function axios(_$, config) {
  if (!config || typeof config !== "object") throw new TypeError("axios($, config) needs a config object");
  const base = config.baseURL ? String(config.baseURL).replace(/\/+$/, "") : "";
  const rel = String(config.url || "");
  const url = (base && !/^https?:/i.test(rel) ? `${base}/${rel.replace(/^\/+/, "")}` : rel) + toQuery(config.params);
  /** @type {Record<string, string>} */
  const headers = { ...(config.headers || {}) };
  let body = config.data;
  if (body !== undefined && typeof body !== "string" && !(body instanceof Uint8Array)) {
    body = JSON.stringify(body);
    if (!Object.keys(headers).some((h) => h.toLowerCase() === "content-type")) headers["content-type"] = "application/json";
  }
  const res = await fetch(url, {
    method: (config.method || "GET").toUpperCase(),
    headers,
    body,
    signal: config.timeout ? AbortSignal.timeout(config.timeout) : undefined,
  });
  const text = await res.text();
  let data = text;
  if (config.responseType !== "text") {
    try {
      data = text ? JSON.parse(text) : text;
    } catch {
      data = text;
    }
  }
  const response = { status: res.status, statusText: res.statusText, headers: Object.fromEntries(res.headers), data };
  if (res.status < 200 || res.status >= 300) {
    const err = new Error(`Request failed with status code ${res.status}: ${text.slice(0, 500)}`);
    /** @type {any} */ (err).response = response;
    throw err;
  }
  return config.returnFullResponse ? response : data;
}

/** A method an app must supply itself: calling the default is a configuration mistake. @param {string} name */
function mustImplement(name) {
  return function notImplemented() {
    throw new ConfigurationError(`${name} is not implemented by this app`);
  };
}

/**
 * Mixins SQL apps spread into their methods (`...sqlProxy.methods`): the app overrides each
 * with its own driver code; what it leaves out throws ConfigurationError when called.
 */
const sqlProp = {
  methods: {
    executeQueryAdapter: mustImplement("executeQueryAdapter"),
    getSchema: mustImplement("getSchema"),
  },
};
const sqlProxy = {
  methods: {
    getClientConfiguration: mustImplement("getClientConfiguration"),
    executeQuery: mustImplement("executeQuery"),
    proxyAdapter: mustImplement("proxyAdapter"),
  },
};

module.exports = {
  axios,
  sqlProp,
  sqlProxy,
  ConfigurationError,
  DEFAULT_POLLING_SOURCE_TIMER_INTERVAL: 15 * 60,
  defineApp: identity,
  defineComponent: identity,
  defineSource: identity,
  defineAction: identity,
  definePropDefinitions: identity,
  jsonStringifySafe: (/** @type {unknown} */ v) => JSON.stringify(v),
};
