// @ts-check
/* eslint-disable @typescript-eslint/no-require-imports -- plain CommonJS by design: see worker.cjs */
/**
 * The sandbox worker: a child process that evaluates component code. It is started by
 * sandbox/process.ts with an empty environment and Node's permission model (no fs access
 * beyond this folder, the npm package cache and its own temp dir; no child processes, no
 * workers, no native addons, no inspector), a heap limit, and is killed by its host when an
 * invocation overruns. It handles one request at a time, sent over the IPC channel:
 *
 *   describe  {bundle, packageDirs}                      -> done {result: ComponentDescription}
 *   invoke    {bundleKey, bundle?, packageDirs, action, props, event, db, endpoint, trigger}
 *             streams emit / log / respond messages     -> done {dbChanges, error?}
 *   runs      {bundleKey, bundle?, packageDirs, props, db, endpoint, items: [{trigger, event}]}
 *             runs `run` once per item, in order, each seeing the db the previous one left;
 *             streams emit / log / respond with `item`, then itemDone {item, dbChanges, error?}
 *             per item; the last one says `last: true` and ends the request (no `done`)
 *   steps     {steps: [{id, name, bundleKey?, bundle?, ...}], packageDirs, triggerEvent, context}
 *             streams log (with `item`: the step's index) and respond
 *             -> done {result: {emits, steps, error?, exit?, delay?, loaded}} (steps.cjs; `loaded`:
 *             the steps' bundle keys whose modules this worker keeps, as for sources); the step that
 *             runs is written to PROGRESS_FILE, for the host to read if it stops the worker
 *   action    {bundleKey, bundle, packageDirs, props}    -> done {result: {ret, exports, exit?, error?}}
 *             an action run on its own (action.cjs), its module kept by bundleKey like a source's
 *   options   {bundle, packageDirs, prop, props, prevContext, query, page}
 *             -> done {result: {data: [{label, value}], context}}   (prop-options.cjs)
 *
 * While serving invoke, runs, steps or action the worker may send `call {id, call, op, args, item}` (a
 * data store operation, data-store.cjs; `item`: the step or run making it); the host answers
 * `reply {call, value | error}`.
 *
 * invoke, runs, steps and action also carry `env: {key, vars?}`: the owner's environment
 * variables, which become `process.env` for the request (env.cjs).
 *
 * Written as plain CommonJS with JSDoc types because a TypeScript loader would have to be read
 * from node_modules, which the permission model forbids (and should: it is the server's code).
 */
"use strict";
// First of all, before any component code exists: the outbound network policy (argv[2]).
require("./net-guard.cjs").install(JSON.parse(process.argv[2] || '{"allowPrivate":false,"blockedPorts":[]}'));

const fs = require("node:fs");
const path = require("node:path");
const util = require("node:util");
const { loadBundle } = require("./loader.cjs");
const { describe } = require("./describe-component.cjs");
const { buildContext } = require("./context.cjs");
const { runSteps } = require("./steps.cjs");
const { propOptions } = require("./prop-options.cjs");
const { runAction } = require("./action.cjs");
const { useEnv, resetEnv, setComponentId } = require("./env.cjs");
const dataStores = require("./data-store.cjs");
const platform = require("./shims/platform.cjs");
// Where the platform shim's libraries (axios, mime-types) are: see mounts.ts (SANDBOX_PACKAGES).
require("./shims/platform/modules.cjs").configure(JSON.parse(process.argv[3] || "{}"));

// The private temp dir and the functions that empty it, taken before any component code can
// change process.env or the fs module.
const TMP_DIR = process.env.TMPDIR || "";
const { readdirSync, rmSync, openSync, writeSync } = fs;
const joinPath = path.join;

/**
 * Which step of a workflow run is running, as `<request id> <index>`, overwritten in place as each
 * starts (one pwrite: a message per step cost the host more than recording the run). The host
 * reads it only when it stops the worker mid-run (timeout, memory: process.ts), to say which step
 * was stopped. The name is the host's (process.ts PROGRESS_FILE).
 */
const PROGRESS_FILE = ".headwater-progress";
/** @type {number | undefined} */
let progressFd;
/** @param {string} requestId @param {number} step */
function markProgress(requestId, step) {
  try {
    progressFd ??= openSync(joinPath(TMP_DIR, PROGRESS_FILE), "w");
    writeSync(progressFd, `${requestId} ${step}\n`.padEnd(64), 0);
  } catch {
    // Nowhere to write it: a stopped run's error then names no step.
  }
}

/** Each run starts with an empty temp dir: nothing is left for the next one to read. */
function emptyTmpDir() {
  if (!TMP_DIR) return;
  try {
    for (const entry of readdirSync(TMP_DIR)) {
      if (entry !== PROGRESS_FILE) rmSync(joinPath(TMP_DIR, entry), { recursive: true, force: true });
    }
  } catch {
    // Nothing to clean, or a file the run made unremovable: the next run may see it, as this
    // owner's own leftover (the dir is never shared with another owner).
  }
}

// Components written for the hosted service use these as globals.
Object.assign(globalThis, {
  defineComponent: platform.defineComponent,
  defineSource: platform.defineSource,
  defineApp: platform.defineApp,
  defineAction: platform.defineAction,
});

// The IPC channel is ours, not the component's: keep the send functions here and take them off
// `process`, so component code cannot forge messages past the limits context.cjs enforces.
// (`_send` is looked up on `this`, hence the object that inherits from process.)
const realSend = process.send;
const ipc = Object.create(process, { _send: { value: process._send } });
for (const name of ["send", "_send"]) {
  Object.defineProperty(process, name, { value: undefined, writable: false, configurable: false });
}
// `process.channel` stays: on Node 20 it is a Control object (ref/unref only, the pipe handle is
// private), and Node itself needs it to deliver incoming messages.

/** @param {any} msg */
function send(msg) {
  if (realSend) realSend.call(ipc, msg);
}

/** The request being served (and the run of a batch), for console output, and its log lines. */
let current = /** @type {string | null} */ (null);
let currentItem = /** @type {number | undefined} */ (undefined);
// Data store calls go out on this channel, tagged with the request they belong to and (in a
// workflow's steps) the step that made them: a run's writes are keyed by step (data-stores/once.ts).
dataStores.configure((msg) => send({ ...msg, item: currentItem }), () => current);
let logged = 0;
const MAX_LOG_LINES = 1000;

for (const level of /** @type {const} */ (["log", "info", "warn", "error", "debug", "trace"])) {
  console[level] = (...args) => {
    if (current === null || logged > MAX_LOG_LINES) return;
    if (++logged > MAX_LOG_LINES) {
      send({
        t: "log",
        id: current,
        item: currentItem,
        level: "warn",
        message: `more than ${MAX_LOG_LINES} log lines: the rest of this run's output is dropped`,
      });
      return;
    }
    const message = util.formatWithOptions({ depth: 6, colors: false }, ...args);
    send({
      t: "log",
      id: current,
      item: currentItem,
      level: level === "trace" ? "debug" : level,
      message: message.slice(0, 64 * 1024),
    });
  };
}
console.dir = (obj) => console.log(obj);

// Process controls the permission model does not cover. Signals reach any process of the same
// user: `_kill` could kill the server, `_debugProcess` (SIGUSR1) would open the server's
// inspector. Ending the worker would look like a platform failure (and be retried). Each is
// replaced, non-writably, by a function that throws an ordinary error.
const refuse = (/** @type {string} */ what) => () => {
  throw new Error(`${what} is not available to components`);
};
const exitForReal = process.reallyExit.bind(process);
watchServerGone();
for (const name of [
  "exit",
  "reallyExit",
  // Closing the IPC channel ends the worker as surely as exit (the host sees it gone).
  "disconnect",
  "_disconnect",
  "abort",
  "kill",
  "_kill",
  "_debugProcess",
  "_debugEnd",
  "_startProfilerIdleNotifier",
  "_stopProfilerIdleNotifier",
  "dlopen",
  "_linkedBinding",
  "setuid",
  "setgid",
  "seteuid",
  "setegid",
  "setgroups",
  "initgroups",
]) {
  Object.defineProperty(process, name, {
    value: refuse(`process.${name}`),
    writable: false,
    configurable: false,
  });
}
/**
 * The server went away (even by kill -9): the worker ends with it. Node reports the end of the
 * IPC pipe by calling `process.disconnect()` (refused below, as a component could call it too),
 * so the end is seen first, on the pipe handle itself: a read without data is the end. The
 * handle is then taken off `process` (Node sends plain messages through its own reference and
 * needs this one only to pass sockets and to disconnect, which the worker never does): a
 * component holding it could close the pipe, or write messages past context.cjs's limits. A
 * `disconnect` listener on process would not do: a component can `process.emit("disconnect")`.
 */
function watchServerGone() {
  const key = Object.getOwnPropertySymbols(process).find((k) => k.description === "kChannelHandle");
  const handle = key && /** @type {any} */ (process)[key];
  if (!handle || typeof handle.onread !== "function")
    throw new Error("sandbox worker: Node's IPC pipe handle was not found (Node version changed?)");
  const onread = handle.onread;
  handle.onread = function (/** @type {unknown[]} */ ...args) {
    if (!args[0]) exitForReal(0);
    return onread.apply(this, args);
  };
  delete (/** @type {any} */ (process))[key];
}
// Renicing other processes is the same kind of reach.
const os = require("node:os");
Object.defineProperty(os, "setPriority", {
  value: refuse("os.setPriority"),
  writable: false,
  configurable: false,
});

// A component's stray promise must not take the worker down; it is reported as a log line.
process.on("unhandledRejection", (reason) => {
  console.error("Unhandled promise rejection:", reason);
});
process.on("uncaughtException", (err) => {
  console.error("Uncaught exception:", err);
});

/** @param {unknown} e */
function serialiseError(e) {
  const err = /** @type {any} */ (e);
  if (err && typeof err === "object") {
    return {
      name: String(err.name || "Error"),
      message: String(err.message ?? ""),
      stack: typeof err.stack === "string" ? err.stack : String(err),
      code: typeof err.code === "string" ? err.code : undefined,
    };
  }
  return { name: "Error", message: String(e), stack: String(e), code: undefined };
}

/** Loaded component modules by bundle key (the code hash): warm invocations skip evaluation. */
const components = new Map();

/**
 * A bundle's module, evaluated once per worker under its key (the host sends the bundle only
 * until it knows this worker has it: `loaded` in the answer); without a key, evaluated each time.
 * @param {string | undefined} key @param {any} bundle @param {Record<string, string>} [packageDirs]
 */
function moduleOf(key, bundle, packageDirs) {
  const known = key ? components.get(key) : undefined;
  if (known) return known;
  if (!bundle) throw new Error("internal: bundle not loaded in this worker");
  const mod = loadBundle(bundle, packageDirs || {});
  if (key && mod && typeof mod === "object") components.set(key, mod);
  return mod;
}

/** The component of a request's bundle, evaluated once per worker. @param {any} msg */
function componentOf(msg) {
  const component = moduleOf(msg.bundleKey, msg.bundle, msg.packageDirs);
  if (!component || typeof component !== "object") throw new Error("the module does not export a component");
  return component;
}

/** @param {any} msg @param {number} [item] the run's index in a batch */
async function handleInvoke(msg, item) {
  const component = componentOf(msg);
  const id = msg.id;
  const { ctx, dbChanges } = buildContext(component, msg, {
    emit: (data, meta) => send({ t: "emit", id, item, data, meta: safeMeta(meta) }),
    respond: (response) => send({ t: "respond", id, item, response }),
  });
  // The hosted service's way for a component to know its own id (the scheduled-tasks source
  // subscribes itself with it); set for this run only, the process may serve other sources.
  if (typeof msg.sourceId === "string") setComponentId(msg.sourceId);
  try {
    if (msg.action === "run") {
      if (typeof component.run === "function") await component.run.call(ctx, msg.event);
      else if (msg.trigger === "timer") ctx.$emit(msg.event, {});
    } else {
      const hook = component.hooks && component.hooks[msg.action];
      if (typeof hook === "function") await hook.call(ctx);
    }
    return { dbChanges: dbChanges() };
  } catch (e) {
    return { dbChanges: dbChanges(), error: serialiseError(e) };
  } finally {
    setComponentId(undefined);
  }
}

/**
 * A source's queued runs in one request: no round trip to the host between them. `this.db`
 * carries from one run to the next here, as the host would have stored it.
 * @param {any} msg
 */
async function handleRuns(msg) {
  /** @type {Record<string, string>} */
  const db = { ...(msg.db || {}) };
  for (let i = 0; i < msg.items.length; i++) {
    currentItem = i;
    logged = 0;
    const item = msg.items[i];
    // Each run reads its owner's variables as they were sent, whatever the run before did to them.
    if (i > 0) resetEnv();
    let out;
    try {
      out = await handleInvoke({ ...msg, action: "run", trigger: item.trigger, event: item.event, db }, i);
    } catch (e) {
      out = { dbChanges: {}, error: serialiseError(e) };
    }
    for (const [key, value] of Object.entries(out.dbChanges)) {
      if (value === null) delete db[key];
      else db[key] = value;
    }
    send({ t: "itemDone", id: msg.id, item: i, ...out, ...(i === msg.items.length - 1 ? { last: true } : {}) });
    // After the answer, off its path, and before the next run (after the last, the request's end does it).
    if (i < msg.items.length - 1) emptyTmpDir();
  }
}

/** Only the documented $emit options, as JSON. @param {Record<string, any>} meta */
function safeMeta(meta) {
  /** @type {Record<string, unknown>} */
  const out = {};
  if (meta.id !== undefined && meta.id !== null)
    out.id = typeof meta.id === "number" ? meta.id : String(meta.id);
  if (typeof meta.name === "string") out.name = meta.name;
  if (meta.summary !== undefined) out.summary = String(meta.summary);
  if (typeof meta.ts === "number" && Number.isFinite(meta.ts)) out.ts = meta.ts;
  // Epoch ms, as `Date.parse` gives it: the event is delivered then (server/runtime/delayed-emits.ts).
  if (typeof meta.delivery_ts === "number" && Number.isFinite(meta.delivery_ts)) out.delivery_ts = meta.delivery_ts;
  return out;
}

/** A prop's choices (prop-options.cjs); errors carry their code (no_such_prop, options_failed). @param {any} msg */
async function handleOptions(msg) {
  const result = await propOptions(loadBundle(msg.bundle, msg.packageDirs || {}), msg);
  send({ t: "done", id: msg.id, result });
}

process.on("message", async (/** @type {any} */ msg) => {
  // The answer to a data store call of the request being served, not a request of its own.
  if (msg && msg.t === "reply") return dataStores.onReply(msg);
  current = msg.id;
  logged = 0;
  try {
    // `process.env`: the request's owner's variables (env.cjs); none for describing and options.
    useEnv(msg.env);
    if (msg.t === "describe") {
      let result;
      try {
        result = describe(loadBundle(msg.bundle, msg.packageDirs || {}));
      } catch (e) {
        send({ t: "done", id: msg.id, error: serialiseError(e) });
        return;
      }
      send({ t: "done", id: msg.id, result });
    } else if (msg.t === "invoke") {
      const out = await handleInvoke(msg);
      send({ t: "done", id: msg.id, ...out });
    } else if (msg.t === "runs") {
      // The last itemDone ends the request; a batch of none still needs its answer.
      await handleRuns(msg);
      if (msg.items.length === 0) send({ t: "done", id: msg.id });
    } else if (msg.t === "steps") {
      // Console lines are tagged with the step that wrote them (`item`: its index).
      const result = await runSteps(msg, {
        onStep: (i) => {
          currentItem = i;
          if (i !== undefined && TMP_DIR) markProgress(msg.id, i);
        },
        respond: (response) => send({ t: "respond", id: msg.id, response }),
        load: (step) => moduleOf(step.bundleKey, step.bundle, msg.packageDirs),
      });
      // The steps' modules this worker now keeps: the host sends them no more.
      const loaded = msg.steps.flatMap((/** @type {any} */ st) =>
        st.bundleKey && components.has(st.bundleKey) ? [st.bundleKey] : [],
      );
      send({ t: "done", id: msg.id, result: { ...result, loaded } });
    } else if (msg.t === "action") {
      const result = await runAction(componentOf(msg), { props: msg.props || {}, steps: {} });
      send({ t: "done", id: msg.id, result });
    } else if (msg.t === "options") {
      await handleOptions(msg);
    }
  } catch (e) {
    send({ t: "done", id: msg.id, error: serialiseError(e) });
  } finally {
    // Each request (and so each run) starts with an empty temp dir; done after the answer.
    emptyTmpDir();
    current = null;
    currentItem = undefined;
  }
});

send({ t: "ready" });
