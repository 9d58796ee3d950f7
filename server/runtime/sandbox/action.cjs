// @ts-check
/* eslint-disable @typescript-eslint/no-require-imports -- plain CommonJS by design: see worker.cjs */
/**
 * Inside the sandbox: runs an action (a component of `type: "action"`, `run({ steps, $ })`), on
 * its own (POST /actions/run) or as a workflow step (steps.cjs). `this` is built as for a source
 * (context.cjs: props become values, app props carry their methods and `$auth`), with the
 * values of the prop types actions use read the way the vendor's components expect them
 * (`sql` is `{query, params}`, `dir` a writable folder, `alert` has no value).
 *
 * `$` is the platform's step API (shared with code steps): `$.export(name, value)` (the name
 * `$summary` is the run's summary), `$.flow.exit(reason)`, `$.send.emit` (workflow steps only),
 * `$.send.http(config)` (sent through the platform's axios once the run ends, so under the
 * sandbox's network policy), `$.respond(response)` (workflow steps only: the HTTP caller's
 * answer); what needs the hosted service's own services
 * (`$.send.email`, `$.send.s3`, `$.flow.delay`, ...) throw a clear error instead.
 *
 * A workflow step's props may hold `{{ steps.<path> }}` and `{{ process.env.NAME }}` references:
 * resolved here, by walking own properties of `steps` and of the run's `process.env`; nothing in
 * them is evaluated.
 */
"use strict";
const os = require("node:os");
const { buildContext } = require("./context.cjs");
const { propEntries, isApp } = require("./describe-component.cjs");
const { END_NEEDLE } = require("./shims/platform/send.cjs");
const { cloneSafe } = require("./shims/platform/json.cjs");

const WHOLE = /^\s*\{\{\s*([^{}]+?)\s*\}\}\s*$/;
const PART = /\{\{\s*([^{}]+?)\s*\}\}/g;
const PATH = /^[A-Za-z_$][\w$]*(?:\.[\w$-]+|\[\d+\])*$/;

/** Whether an error ends the run on purpose ($.flow.exit, the platform's $end). @param {any} err */
function isFlowExit(err) {
  return (
    Boolean(err) &&
    (typeof err === "object" || typeof err === "function") &&
    (err.flowExit === true || Boolean(err[END_NEEDLE]))
  );
}

/** A JSON copy (cycles and BigInt handled as the platform's cloneSafe does); undefined stays. @param {unknown} v */
function json(v) {
  if (v === undefined) return undefined;
  try {
    const text = JSON.stringify(v);
    return text === undefined ? undefined : JSON.parse(text);
  } catch {
    return cloneSafe(v);
  }
}

/** @param {string} what */
const unavailable = (what) => () => {
  throw new Error(`${what} is not available on Headwater`);
};

/**
 * The step API. `emit` absent: `$.send.emit` is refused (a run on its own has nowhere to emit).
 * `respond` absent: `$.respond` is refused (only a workflow's run has an HTTP caller); `delay`
 * absent: `$.flow.delay` is refused (only a workflow's run can wait and go on).
 * @param {{ exported: Record<string, unknown>, httpSends: Array<Record<string, any>>,
 *           emit?: (data: unknown, channel: string) => void, respond?: (response: unknown) => void,
 *           delay?: (ms: number) => unknown }} io
 */
function makeDollar(io) {
  /** @type {Record<string, any>} */
  const $ = {
    /** @param {string} name @param {unknown} value */
    export: (name, value) => {
      io.exported[String(name)] = json(value);
    },
    send: {
      /** @param {unknown} data @param {string} [channel] */
      emit: (data, channel) => {
        if (!io.emit)
          throw new Error(
            "$.send.emit is available in workflow steps only: an action run on its own returns its result",
          );
        io.emit(data === undefined ? null : data, typeof channel === "string" ? channel : "");
      },
      /** @param {Record<string, any>} config */
      http: (config) => {
        if (!config || typeof config !== "object" || typeof config.url !== "string")
          throw new TypeError("$.send.http needs {url, method?, data?, headers?, params?}");
        io.httpSends.push({ ...config });
      },
      email: unavailable("$.send.email"),
      s3: unavailable("$.send.s3"),
      sse: unavailable("$.send.sse"),
      sql: unavailable("$.send.sql"),
    },
    flow: {
      /** @param {string} [reason] */
      exit: (reason) => {
        throw Object.assign(new Error(reason === undefined ? "$.flow.exit" : String(reason)), {
          flowExit: true,
          reason: reason === undefined ? null : String(reason),
        });
      },
      /** @param {number} ms */
      delay: io.delay ? (ms) => /** @type {any} */ (io.delay)(ms) : unavailable("$.flow.delay"),
      rerun: unavailable("$.flow.rerun"),
      suspend: unavailable("$.flow.suspend"),
    },
    /** @param {unknown} response */
    respond: (response) => {
      if (!io.respond)
        throw new Error(
          "$.respond answers a workflow's HTTP caller: an action run on its own returns its result",
        );
      io.respond(response);
    },
  };
  return $;
}

/** Sends what `$.send.http` queued, through the platform's axios; a failure is a log line. @param {Array<Record<string, any>>} sends */
async function flushHttpSends(sends) {
  if (sends.length === 0) return;
  const { axios } = require("./shims/platform/axios.cjs");
  for (const config of sends) {
    try {
      await axios(undefined, { method: "post", ...config });
    } catch (e) {
      console.warn(`$.send.http to ${config.url} failed: ${/** @type {any} */ (e)?.message ?? e}`);
    }
  }
}

/** The value at a dotted path (`steps.trigger.event.body.email`, `a[0]`), own properties only. @param {Record<string, unknown>} root @param {string} path */
function lookup(root, path) {
  /** @type {any} */
  let at = root;
  for (const seg of path.replace(/\[(\d+)\]/g, ".$1").split(".")) {
    if (at === null || typeof at !== "object" || !Object.prototype.hasOwnProperty.call(at, seg))
      return undefined;
    at = at[seg];
  }
  return at;
}

/**
 * `{{ path }}` references into `{steps}`: a value that is wholly one takes the value; one among
 * text is put in as text (objects as JSON). What is not a plain path stays as written.
 * @param {unknown} value @param {Record<string, unknown>} scope @returns {unknown}
 */
function resolveTemplates(value, scope, depth = 0) {
  if (depth > 20) return value;
  if (typeof value === "string") {
    const whole = WHOLE.exec(value);
    if (whole && PATH.test(whole[1])) return lookup(scope, whole[1]);
    return value.replace(PART, (all, path) => {
      if (!PATH.test(path)) return all;
      const v = lookup(scope, path);
      if (v === undefined || v === null) return "";
      return typeof v === "string" ? v : JSON.stringify(v);
    });
  }
  if (Array.isArray(value)) return value.map((v) => resolveTemplates(v, scope, depth + 1));
  // fromEntries defines own properties: a `__proto__` key stays a key, never a prototype.
  if (value && typeof value === "object")
    return Object.fromEntries(
      Object.entries(value).map(([k, v]) => [k, resolveTemplates(v, scope, depth + 1)]),
    );
  return value;
}

/**
 * A configured value as the vendor's components read it. The server checked the values of a
 * run; a step's `{{ }}` values arrive here first, so the same readings apply to them.
 * @param {Record<string, any>} def @param {unknown} v
 */
function readValue(def, v) {
  switch (def.type) {
    case "sql":
      if (typeof v === "string") return { query: v, params: [] };
      return v;
    case "integer":
      return typeof v === "string" && /^-?\d+$/.test(v.trim()) ? Number(v) : v;
    case "boolean":
      return v === "true" ? true : v === "false" ? false : v;
    case "string":
      return typeof v === "number" || typeof v === "boolean" ? String(v) : v;
    case "dir":
      // The hosted service mounts a folder for the run; here it is the run's own temp dir (from
      // the real environment: `process.env` holds the owner's variables, which may name TMPDIR).
      return os.tmpdir();
    default:
      return v;
  }
}

/**
 * Runs one action. Never throws: a failure is `error`, a flow exit `exit`.
 * @param {Record<string, any>} component the loaded module
 * @param {{ props: Record<string, unknown>, steps: Record<string, unknown>,
 *           emit?: (data: unknown, channel: string) => void, respond?: (response: unknown) => void,
 *           delay?: (ms: number) => unknown }} input
 * @returns {Promise<{ ret: unknown, exports: Record<string, unknown>, exit?: string | null,
 *                     error?: { name: string, message: string, stack: string, code?: string } }>}
 */
async function runAction(component, input) {
  /** @type {Record<string, unknown>} */
  const exported = {};
  /** @type {Array<Record<string, any>>} */
  const httpSends = [];
  try {
    if (!component || typeof component !== "object" || typeof component.run !== "function")
      throw new Error("the module is not an action: it has no run method");
    /** @type {Record<string, unknown>} */
    const props = {};
    for (const [name, def] of propEntries(component)) {
      const given = input.props[name];
      props[name] = isApp(def) ? given : readValue(def, given);
    }
    const { ctx } = buildContext(
      component,
      { props, db: {}, endpoint: null },
      {
        emit: () => {
          throw new Error("this.$emit is for sources: an action returns its result (or uses $.export)");
        },
        respond: () => {
          throw new Error("this.http.respond is for sources with an HTTP interface");
        },
      },
    );
    const $ = makeDollar({
      exported,
      httpSends,
      ...(input.emit ? { emit: input.emit } : {}),
      ...(input.respond ? { respond: input.respond } : {}),
      ...(input.delay ? { delay: input.delay } : {}),
    });
    let ret;
    let exit;
    try {
      ret = await component.run.call(ctx, { steps: input.steps, $ });
    } catch (e) {
      if (!isFlowExit(e)) throw e;
      exit = /** @type {any} */ (e).reason ?? /** @type {any} */ (e).message ?? null;
    }
    await flushHttpSends(httpSends);
    return {
      ret: json(ret),
      exports: exported,
      ...(exit !== undefined ? { exit: exit === null ? null : String(exit) } : {}),
    };
  } catch (e) {
    const err = /** @type {any} */ (e);
    const isObj = err && typeof err === "object";
    return {
      ret: undefined,
      exports: exported,
      error: {
        name: String((isObj && err.name) || "Error"),
        message: isObj && err.message !== undefined ? String(err.message) : String(e),
        stack: (isObj && typeof err.stack === "string" && err.stack) || String(e),
        ...(isObj && typeof err.code === "string" ? { code: err.code } : {}),
      },
    };
  }
}

module.exports = { runAction, makeDollar, resolveTemplates, isFlowExit, flushHttpSends };
