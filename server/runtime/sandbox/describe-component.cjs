// @ts-check
/**
 * Inside the sandbox: turns an evaluated component module into its description (the
 * ComponentDescription of server/services.ts): props in declaration order with functions
 * removed, app `propDefinition`s resolved, shorthand forms normalised.
 */
"use strict";

const TIMER = "$.interface.timer";
const HTTP = "$.interface.http";

/** @param {unknown} v @returns {v is Record<string, any>} */
const isObject = (v) => typeof v === "object" && v !== null && !Array.isArray(v);

/** Deep copy keeping only JSON-representable data (functions and symbols dropped). @param {unknown} v @param {number} depth */
function plain(v, depth = 0) {
  if (depth > 20) return undefined;
  if (v === null || typeof v === "string" || typeof v === "boolean") return v;
  if (typeof v === "number") return Number.isFinite(v) ? v : undefined;
  if (Array.isArray(v)) return v.map((x) => plain(x, depth + 1)).filter((x) => x !== undefined);
  if (isObject(v)) {
    /** @type {Record<string, unknown>} */
    const out = {};
    for (const [k, x] of Object.entries(v)) {
      const p = plain(x, depth + 1);
      if (p !== undefined) out[k] = p;
    }
    return out;
  }
  return undefined;
}

/** An app module used as a prop: `{ type: "app", app: "github", propDefinitions, methods }`. @param {unknown} v */
const isApp = (v) => isObject(v) && v.type === "app" && typeof v.app === "string";

/**
 * Normalises one declared prop to its full definition object (still with functions).
 * @param {string} name @param {unknown} decl
 * @returns {Record<string, any>}
 */
function normaliseProp(name, decl) {
  if (typeof decl === "string") return { type: decl };
  if (isApp(decl)) return /** @type {any} */ (decl);
  if (!isObject(decl)) throw new Error(`prop "${name}" must be an object or a type string`);
  let def = { ...decl };
  if (Array.isArray(def.propDefinition)) {
    const [app, defName] = def.propDefinition;
    if (!isApp(app)) throw new Error(`prop "${name}": propDefinition must name an app prop`);
    const shared = app.propDefinitions && app.propDefinitions[defName];
    if (!isObject(shared)) throw new Error(`prop "${name}": app "${app.app}" has no propDefinition "${defName}"`);
    const { propDefinition: _drop, ...own } = def;
    def = { ...shared, ...own };
  }
  if (def.type === TIMER && def.default === undefined && (def.intervalSeconds || def.cron)) {
    def.default = def.cron ? { cron: def.cron } : { intervalSeconds: def.intervalSeconds };
  }
  if (typeof def.type !== "string") throw new Error(`prop "${name}" has no type`);
  return def;
}

/**
 * The component's props as full definitions, in declaration order. A component-level
 * `intervalSeconds` / `cron` with no timer prop adds one named `timer`.
 * @param {Record<string, any>} component
 * @returns {Array<[string, Record<string, any>]>}
 */
function propEntries(component) {
  const props = isObject(component.props) ? component.props : {};
  /** @type {Array<[string, Record<string, any>]>} */
  const entries = Object.entries(props).map(([n, d]) => [n, normaliseProp(n, d)]);
  const hasTimer = entries.some(([, d]) => d.type === TIMER);
  if (!hasTimer && (component.intervalSeconds || component.cron)) {
    const def = component.cron ? { cron: String(component.cron) } : { intervalSeconds: Number(component.intervalSeconds) };
    entries.push(["timer", { type: TIMER, default: def }]);
  }
  return entries;
}

/**
 * The `$auth` fields an app's code reads (`this.$auth.host`, `const { user } = this.$auth`), in
 * order of appearance: a hint for the form that asks for the app's credentials. Read from the
 * functions' text, so an app that builds names at run time simply lists fewer.
 * @param {Record<string, any>} app
 */
function authFields(app) {
  /** @type {Set<string>} */
  const found = new Set();
  /** @param {unknown} v @param {number} depth */
  const scan = (v, depth) => {
    if (depth > 3 || !isObject(v)) return;
    for (const x of Object.values(v)) {
      if (typeof x === "function") {
        const text = Function.prototype.toString.call(x);
        for (const m of text.matchAll(/\$auth\??\.([A-Za-z_][\w]*)/g)) found.add(m[1]);
        for (const m of text.matchAll(/\{([^{}]*)\}\s*=\s*(?:this\.)?\$auth\b/g))
          for (const part of m[1].split(",")) {
            const field = /^\s*([A-Za-z_][\w]*)/.exec(part);
            if (field) found.add(field[1]);
          }
      } else scan(x, depth + 1);
    }
  };
  scan(app.methods, 0);
  scan(app.propDefinitions, 0);
  return [...found];
}

/** @param {string} name @param {Record<string, any>} def */
function describeProp(name, def) {
  if (isApp(def)) {
    const fields = authFields(def);
    // What a prop declared as `{ type: "app", app, optional, label }` says of itself (a code
    // step's, say); an app module used as a prop has none of these.
    /** @type {Record<string, unknown>} */
    const own = {};
    for (const k of ["label", "description"]) if (typeof def[k] === "string") own[k] = def[k];
    if (def.optional === true) own.optional = true;
    return { name, type: "app", app: def.app, ...own, ...(fields.length > 0 ? { authFields: fields } : {}) };
  }
  const { propDefinitions: _a, methods: _b, ...rest } = def;
  // `async options()` cannot travel as JSON: say that the prop has choices to ask for.
  const remote = typeof def.options === "function" ? { remoteOptions: true } : {};
  return { name, ...(/** @type {object} */ (plain(rest))), ...remote };
}

/**
 * @param {unknown} component the module's value
 */
function describe(component) {
  if (!isObject(component)) throw notAComponent("the module does not export an object");
  const entries = propEntries(component);
  const hooks = isObject(component.hooks)
    ? ["deploy", "activate", "deactivate"].filter((h) => typeof component.hooks[h] === "function")
    : [];
  const hasRun = typeof component.run === "function";
  const hasTimer = entries.some(([, d]) => d.type === TIMER);
  if (!hasRun && !hasTimer) {
    throw notAComponent("a component needs a run method (or a timer prop, for a schedule without run)");
  }
  if (component.type === "app") throw notAComponent("this is an app module, not a component");
  const dedupe = ["unique", "greatest", "last"].includes(component.dedupe) ? component.dedupe : undefined;
  if (component.dedupe !== undefined && !dedupe) {
    throw notAComponent(`dedupe must be "unique", "greatest" or "last", not ${JSON.stringify(component.dedupe)}`);
  }
  const key = typeof component.key === "string" ? component.key : undefined;
  return {
    key,
    name: typeof component.name === "string" && component.name ? component.name : key ?? "Untitled component",
    version: typeof component.version === "string" ? component.version : "0.0.1",
    description: typeof component.description === "string" ? component.description : undefined,
    props: entries.map(([n, d]) => describeProp(n, d)),
    dedupe,
    hooks,
    hasRun,
    // Actions (`type: "action"`) run by key (POST /actions/run); anything else is a source.
    type: component.type === "action" ? "action" : "source",
  };
}

/** @param {string} message */
function notAComponent(message) {
  const err = new Error(message);
  /** @type {any} */ (err).code = "invalid_component";
  return err;
}

module.exports = { describe, propEntries, isApp, TIMER, HTTP };
