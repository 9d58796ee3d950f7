// @ts-check
/* eslint-disable @typescript-eslint/no-require-imports -- plain CommonJS by design: see worker.cjs */
"use strict";
/**
 * `axios($, config)`: the platform's HTTP helper, built on the axios library itself.
 *
 * What it adds to a plain axios call, as the vendor documents it:
 * - it resolves to the response's `data`, or to the whole response with `returnFullResponse`;
 * - headers, params and an object `data` lose their `undefined` entries (components build
 *   them from optional props); a query string in `url` moves into `params` (params win);
 * - `body` is refused: axios sends `data`, and a silently ignored body is a hard bug to find;
 * - `debug: true` exports the config and the response data on `$` (`debug_config`,
 *   `debug_response`); a failed request exports a `debug` summary of its response when `$`
 *   can export (a workflow step);
 * - an error with a response carries it (`err.response.status`, `.data`, `.headers`), its
 *   message is the response body as JSON, and the request config (with its credentials) is
 *   taken off the error so it never reaches a log;
 * - a third argument `{oauthSignerUri, token}` signs the request (OAuth 1) through that URI.
 * `axios.create(config, signConfig)` gives an axios instance with the same behaviour.
 */
const { library } = require("./modules.cjs");
const { ConfigurationError } = require("./errors.cjs");
const { cloneSafe } = require("./json.cjs");

/** @returns {any} */
const lib = () => library("axios");

/** A copy without its undefined entries (objects only; arrays and streams stay as they are). @param {unknown} o */
function withoutUndefined(o) {
  if (!o || typeof o !== "object" || Array.isArray(o) || Object.getPrototypeOf(o) !== Object.prototype)
    return o;
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined));
}

/**
 * The request config axios gets: pruned, query string moved to params. Not the caller's
 * object: components often reuse one config for several calls.
 * @param {Record<string, any>} config
 */
function prepare(config) {
  const out = { ...config };
  if (out.headers && typeof out.headers === "object" && !(typeof out.headers.toJSON === "function")) {
    out.headers = withoutUndefined(out.headers);
  }
  out.params = withoutUndefined(out.params);
  out.data = withoutUndefined(out.data);
  if (typeof out.url === "string" && out.url.includes("?")) {
    // Only the URL's own text is read (not joined with baseURL): a query string moves to
    // params unless it repeats a key, which params could not say the same way.
    const q = out.url.indexOf("?");
    const hash = out.url.indexOf("#", q);
    const query = new URLSearchParams(out.url.slice(q + 1, hash >= 0 ? hash : undefined));
    const keys = [...query.keys()];
    if (new Set(keys).size === keys.length) {
      /** @type {Record<string, unknown>} */
      const params = { ...(out.params || {}) };
      for (const [k, v] of query) if (!(k in params)) params[k] = v;
      out.params = params;
      out.url = out.url.slice(0, q) + (hash >= 0 ? out.url.slice(hash) : "");
    }
  }
  return out;
}

/**
 * A debug value on `$`: through `$.export` where there is one (workflow steps), else as a
 * property of `$`; logged either way.
 * @param {any} $ @param {string} key @param {unknown} value
 */
function exportDebug($, key, value) {
  const copy = cloneSafe(value);
  if ($ && typeof $.export === "function") $.export(key, copy);
  else if ($ && typeof $ === "object") $[key] = copy;
  console.log(`export: ${key} - ${JSON.stringify(copy, null, 2)}`);
}

/** @param {any} response */
function summary(response) {
  return {
    status: response.status,
    statusText: response.statusText,
    headers: response.headers,
    data: response.data,
  };
}

/**
 * What a failed request throws: the response stays, the request and its config (headers
 * with tokens) go; the message is the body the service sent, which says what went wrong.
 * @param {any} err
 */
function cleanError(err) {
  if (!err || typeof err !== "object") return err;
  if (err.response) {
    delete err.response.request;
    delete err.response.config;
    err.name = `${err.name} - ${err.message}`;
    try {
      const body = JSON.stringify(err.response.data);
      if (body !== undefined) err.message = body;
    } catch {
      // A body that is not JSON-able keeps axios' own message.
    }
  }
  delete err.config;
  delete err.request;
  return err;
}

/** RFC 3986 query encoding, which OAuth 1 signatures are computed over. @param {Record<string, any>} params */
function oauthQuery(params) {
  const strict = (/** @type {string} */ s) =>
    encodeURIComponent(s).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
  /** @type {string[]} */
  const parts = [];
  for (const [k, v] of Object.entries(params || {})) {
    if (v === undefined) continue;
    for (const item of Array.isArray(v) ? v : [v])
      parts.push(`${strict(k)}=${strict(item === null ? "" : String(item))}`);
  }
  return parts.join("&");
}

/**
 * The request as an OAuth 1 signer sees it: method, full URL with its query, and the body
 * only when it is form-encoded (the only body OAuth 1 signs). Sets the same query encoding
 * on the config, so the request sent matches the one signed.
 * @param {Record<string, any>} config
 */
function transformConfigForOauth(config) {
  config.paramsSerializer = oauthQuery;
  const url = lib().getUri({ ...config });
  /** @type {{ method: string, url: string, data?: Record<string, unknown> }} */
  const request = { method: config.method || "get", url };
  const headers = config.headers || {};
  const typeKey = Object.keys(headers).find((h) => h.toLowerCase() === "content-type");
  const form =
    typeKey !== undefined && String(headers[typeKey]).startsWith("application/x-www-form-urlencoded");
  if (config.data && typeof config.data === "object" && form) request.data = config.data;
  else if (typeof config.data === "string" && (typeKey === undefined || form)) {
    request.data = Object.fromEntries(new URLSearchParams(config.data));
  }
  return request;
}

/** @param {Record<string, any>} config @param {{ oauthSignerUri: string, token: unknown }} sign */
async function oauthHeader(config, sign) {
  const requestData = transformConfigForOauth(config);
  const res = await lib().post(sign.oauthSignerUri, { requestData, token: sign.token });
  return res.data;
}

/**
 * @param {any} $ the step or source (`this`); where debug exports go
 * @param {Record<string, any>} config axios' request config plus `debug`, `returnFullResponse`
 * @param {{ oauthSignerUri: string, token: unknown }} [signConfig]
 */
async function axios($, config, signConfig) {
  if (!config || typeof config !== "object") throw new TypeError("axios($, config) needs a config object");
  if (config.body !== undefined && config.body !== null) {
    throw new ConfigurationError("axios($, config): unexpected `body`; send the request body as `data`");
  }
  const cfg = prepare(config);
  if (signConfig) cfg.headers = { ...(cfg.headers || {}), Authorization: await oauthHeader(cfg, signConfig) };
  if (cfg.debug) exportDebug($, "debug_config", cfg);
  let response;
  try {
    response = await lib()(cfg);
  } catch (err) {
    const e = /** @type {any} */ (err);
    if (e && e.response && $ && typeof $.export === "function") exportDebug($, "debug", summary(e.response));
    throw cleanError(e);
  }
  if (cfg.debug) exportDebug($, "debug_response", response.data);
  return cfg.returnFullResponse ? response : response.data;
}

/**
 * An axios instance that behaves like `axios($, config)` for every request it makes.
 * @param {Record<string, any>} [config] @param {{ oauthSignerUri: string, token: unknown }} [signConfig]
 */
axios.create = function create(config, signConfig) {
  const instance = lib().create(config);
  if (config && config.debug) exportDebug(undefined, "debug_config", config);
  instance.interceptors.request.use(async (/** @type {any} */ req) => {
    const out = prepare(req);
    if (signConfig) out.headers.Authorization = await oauthHeader(out, signConfig);
    return out;
  });
  instance.interceptors.response.use(
    (/** @type {any} */ res) => {
      if (res.config && res.config.debug) exportDebug(undefined, "debug_response", res.data);
      return res.config && res.config.returnFullResponse ? res : res.data;
    },
    (/** @type {any} */ err) => {
      if (err && err.response) exportDebug(undefined, "debug", summary(err.response));
      throw cleanError(err);
    },
  );
  return instance;
};

module.exports = { axios, transformConfigForOauth };
