// @ts-check
/* eslint-disable @typescript-eslint/no-require-imports -- plain CommonJS by design: see worker.cjs */
/**
 * Inside the sandbox: a prop's choices, from its `async options()` as the hosted service calls
 * it. A prop taken from an app (`propDefinition: [app, "name", mapper?]`) runs its options with
 * `this` = that app (its methods and the `$auth` configured on the component's app prop) and
 * the mapper's result among the arguments; a prop of the component's own runs with `this` = the
 * component (the props configured so far, its methods, its apps). Both receive
 * `{page, prevContext, query}`. The answer is `{data: [{label, value}], context}`: plain
 * values become `label = String(value)`; `{options, context}` carries a context for the next page.
 */
"use strict";
const { isApp } = require("./describe-component.cjs");
const { buildContext, appInstance } = require("./context.cjs");

/** Most choices one call may return (a form cannot show more anyway). */
const MAX_OPTIONS = 10_000;

/** @param {unknown} v @returns {v is Record<string, any>} */
const isObject = (v) => typeof v === "object" && v !== null && !Array.isArray(v);

/** @param {string} code @param {string} message */
function fail(code, message) {
  const err = new Error(message);
  /** @type {any} */ (err).code = code;
  return err;
}

/** JSON copy of a value (functions dropped, cycles refused). @param {unknown} v */
function json(v) {
  if (v === undefined) return null;
  const text = JSON.stringify(v);
  return text === undefined ? null : JSON.parse(text);
}

/** @param {unknown} o @param {string} prop */
function option(o, prop) {
  if (isObject(o) && "value" in o) {
    const value = json(o.value);
    return { label: String(o.label ?? (typeof value === "string" ? value : JSON.stringify(value))), value };
  }
  if (typeof o === "string" || typeof o === "number" || typeof o === "boolean") return { label: String(o), value: o };
  throw fail("options_failed", `options() of prop "${prop}" returned ${JSON.stringify(o)}: each option must be a string, number, boolean or {label, value}`);
}

/**
 * @param {Record<string, any>} component the loaded module
 * @param {{prop: string, props?: Record<string, unknown>, prevContext?: unknown, query?: string, page?: number}} msg
 */
async function propOptions(component, msg) {
  const declared = isObject(component.props) ? component.props : {};
  const prop = msg.prop;
  if (!Object.prototype.hasOwnProperty.call(declared, prop)) throw fail("no_such_prop", `the component has no prop "${prop}"`);
  const decl = declared[prop];
  const configured = isObject(msg.props) ? msg.props : {};
  const args = { page: msg.page ?? 0, prevContext: isObject(msg.prevContext) ? msg.prevContext : {}, query: msg.query };

  /** The component's `this`, built only when an options() of its own needs it. */
  const componentThis = () =>
    buildContext(component, { props: configured, db: {}, endpoint: null }, {
      emit: () => {
        throw new Error("$emit is not available while listing options");
      },
      respond: () => undefined,
    }).ctx;

  /** @type {Function | undefined} */ let fn;
  /** @type {unknown} */ let self;
  /** @type {Record<string, unknown>} */ let extra = {};
  /** @type {unknown} */ let fixed;
  if (isObject(decl) && typeof decl.options === "function") {
    fn = decl.options;
    self = componentThis();
  } else if (isObject(decl) && Array.isArray(decl.propDefinition)) {
    const [app, defName, mapper] = decl.propDefinition;
    const shared = isApp(app) && isObject(app.propDefinitions) ? app.propDefinitions[defName] : undefined;
    if (isObject(shared) && typeof shared.options === "function") {
      fn = shared.options;
      // `this` is the app as configured on the component's prop that holds it.
      const holder = Object.keys(declared).find((name) => declared[name] === app);
      self = appInstance(app, holder ? configured[holder] : undefined);
      if (typeof mapper === "function") {
        const mapped = await mapper.call(undefined, configured);
        if (isObject(mapped)) extra = mapped;
      }
    } else fixed = isObject(decl) && Array.isArray(decl.options) ? decl.options : shared && shared.options;
  } else if (isObject(decl)) fixed = decl.options;
  if (!fn) {
    if (Array.isArray(fixed)) return { data: fixed.slice(0, MAX_OPTIONS).map((o) => option(o, prop)), context: null };
    throw fail("no_options", `prop "${prop}" has no options`);
  }

  let result;
  try {
    result = await fn.call(self, { ...extra, ...args });
  } catch (e) {
    const err = /** @type {any} */ (e);
    const what = err && typeof err === "object" ? `${err.name || "Error"}: ${err.message}` : String(e);
    throw fail("options_failed", `options() of prop "${prop}" failed: ${what}`);
  }
  const list = Array.isArray(result) ? result : isObject(result) && Array.isArray(result.options) ? result.options : undefined;
  if (!list) throw fail("options_failed", `options() of prop "${prop}" must return an array or {options, context}`);
  if (list.length > MAX_OPTIONS) throw fail("options_failed", `options() of prop "${prop}" returned more than ${MAX_OPTIONS} options`);
  const context = isObject(result) && !Array.isArray(result) ? json(result.context) : null;
  return { data: list.map((o) => option(o, prop)), context };
}

module.exports = { propOptions };
