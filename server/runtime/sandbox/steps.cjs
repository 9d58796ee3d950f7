// @ts-check
/* eslint-disable @typescript-eslint/no-require-imports -- plain CommonJS by design: see worker.cjs */
/**
 * Inside the sandbox: runs a workflow's steps in order, for the workflows concern.
 * A step is `export default defineComponent({ async run({ steps, $ }) {...} })`; it sees
 * `steps.trigger.event` and earlier steps' `$return_value` (and `$.export`ed values);
 * `$.send.emit(data, channel?)` collects `{raw_event: data}`, legacy `$send.emit(x)` collects x.
 * The first step that throws stops the run; its error is reported with the step's id.
 * A flow exit is not an error: `$.flow.exit(reason)`, or throwing the platform's `$end(reason)`
 * (its error carries END_NEEDLE), ends the run there, keeping what ran before; later steps do
 * not run and nothing goes to `$errors`.
 * An action step (`{action, props}`: the server sends its component's bundle) runs the vendor's
 * action with its props, `{{ steps.<path> }}` references resolved first (action.cjs); its return
 * value and exports land in `steps.<name>` as a code step's do, its error stops the run likewise.
 * A code step that declares props gets them as `this.<prop>` (`configuredProps`, its accounts
 * opened by the server: step-props.cjs).
 * A reused step (`{reused: {return_value, exports}}`, a run going on from a later step) is not
 * run: its earlier results are what later steps see.
 *
 * `return $.flow.delay(ms)` ends the run's steps for now after that step (`delay: {ms, step}`):
 * the server resumes the run with the next one after `ms`.
 *
 * The answer says what each step did (`steps`: status, start, duration, return value, exports,
 * error), in order, up to the step that ended the run. `hooks.onStep(i)` is called as step i
 * starts, so that its console lines are tagged with it (worker.cjs); `hooks.respond` carries
 * `$.respond` to the HTTP caller while the run goes on.
 */
"use strict";
const { loadBundle } = require("./loader.cjs");
// The one definition of `$end`'s marker (the shim components import `$end` from).
const { runAction, makeDollar, resolveTemplates, isFlowExit, flushHttpSends } = require("./action.cjs");
const { checkChannel } = require("./context.cjs");
const { stepThis } = require("./step-props.cjs");

/** The longest `$.flow.delay`: 30 days (decisions.md "Execution controls"). */
const MAX_DELAY_MS = 30 * 86_400_000;

/** A step's error as the run reports it. @param {{id: string}} step @param {any} err */
function stepError(step, err) {
  return {
    cellId: step.id,
    code: (err && typeof err.code === "string" && err.code) || (err && err.name) || "Error",
    message: err && err.message !== undefined ? String(err.message) : String(err),
    stack: (err && err.stack) || String(err),
  };
}

/** The error as a step shows it. @param {any} err */
function shownError(err) {
  const isObj = err && typeof err === "object";
  return {
    name: String((isObj && err.name) || "Error"),
    message: isObj && err.message !== undefined ? String(err.message) : String(err),
    stack: String((isObj && typeof err.stack === "string" && err.stack) || err),
  };
}

/** A flow exit's reason (`$.flow.exit(reason)`, `$end(reason)`), or null. @param {any} err */
function exitReason(err) {
  const r = err && (err.reason !== undefined ? err.reason : err.message);
  return r === undefined || r === null || r === "$.flow.exit" ? null : String(r);
}

/** The HTTP response `$.respond` gives, as JSON the server can check. @param {any} r */
function responseOf(r) {
  const given = r && typeof r === "object" ? r : {};
  /** @type {Record<string, string>} */
  const headers = {};
  if (given.headers && typeof given.headers === "object") {
    for (const [k, v] of Object.entries(given.headers))
      if (v !== undefined && v !== null) headers[k] = Array.isArray(v) ? v.map(String).join(", ") : String(v);
  }
  let body = given.body;
  if (typeof Buffer !== "undefined" && Buffer.isBuffer(body)) body = body.toString("utf8");
  else if (body !== undefined && typeof body !== "string") {
    try {
      body = JSON.parse(JSON.stringify(body) ?? "null");
    } catch {
      body = String(body);
    }
  }
  return {
    status: given.status === undefined ? 200 : Number(given.status),
    headers,
    body: body === undefined ? null : body,
  };
}

/**
 * @param {{ steps: Array<{ id: string, name: string, bundleKey?: string, bundle?: any, action?: string, props?: Record<string, unknown>,
 *           configuredProps?: Record<string, unknown>, reused?: { return_value: unknown, exports: Record<string, unknown> } }>, packageDirs: Record<string,string>,
 *           triggerEvent: unknown, context: Record<string, unknown> }} input
 * @param {{ onStep?: (i: number | undefined) => void, respond?: (response: unknown) => void,
 *           load?: (step: any) => any }} [hooks]  `load`: a step's module (the worker keeps them by
 *           bundle key, so a warm run does not evaluate its steps again); default: evaluated here
 */
async function runSteps(input, hooks = {}) {
  const load = hooks.load ?? ((/** @type {any} */ step) => loadBundle(step.bundle, input.packageDirs));
  /** @type {Array<{ data: unknown, channel: string, step: number }>} */
  const emits = [];
  // The step whose code runs: each emit names it (a test run shows what each step would emit).
  let current = 0;
  /** @type {Array<Record<string, unknown>>} */
  const done = [];
  /** @type {Record<string, any>} */
  const steps = { trigger: { event: input.triggerEvent, context: input.context } };
  const legacySend = {
    /** @param {unknown} x @param {string} [channel] */
    emit: (x, channel) => {
      checkChannel(channel, "$send.emit");
      emits.push({ data: x ?? null, channel: typeof channel === "string" ? channel : "", step: current });
    },
  };
  /** @param {unknown} data @param {string} channel */
  const emit = (data, channel) => {
    checkChannel(channel, "$.send.emit");
    emits.push({ data: { raw_event: data ?? null }, channel, step: current });
  };
  let responded = false;
  /** @param {unknown} r */
  const respond = (r) => {
    if (!hooks.respond) throw new Error("$.respond answers a workflow's HTTP caller: this run has none");
    if (responded) return;
    responded = true;
    hooks.respond(responseOf(r));
  };
  // `$.flow.delay(ms)`: the run waits `ms` after the step that asked, then goes on (the server
  // holds it: runner.ts). Its value, `{resume_at_ms}`, is what `return $.flow.delay(ms)` returns.
  /** @type {number | undefined} */
  let delayMs;
  /** @param {unknown} ms */
  const delay = (ms) => {
    const n = Number(ms);
    if (typeof ms !== "number" || !Number.isInteger(n) || n < 1 || n > MAX_DELAY_MS) {
      throw new RangeError(
        `$.flow.delay takes a whole number of milliseconds from 1 to ${MAX_DELAY_MS} (30 days), not ${String(ms)}`,
      );
    }
    delayMs = n;
    return { resume_at_ms: Date.now() + n };
  };
  const end = (/** @type {Record<string, unknown>} */ extra = {}) => {
    hooks.onStep?.(undefined);
    return { emits, steps: done, ...extra };
  };
  for (const [i, step] of input.steps.entries()) {
    if (step.reused) {
      steps[step.name] = { ...step.reused.exports, $return_value: step.reused.return_value };
      continue;
    }
    hooks.onStep?.(i);
    current = i;
    const started = Date.now();
    const record = (/** @type {string} */ status, /** @type {Record<string, unknown>} */ extra) =>
      done.push({ id: step.id, status, started_at_ms: started, duration_ms: Date.now() - started, ...extra });
    if (step.action !== undefined) {
      const mod = loadOrError(step, load);
      const out = mod.error
        ? { ret: undefined, exports: {}, error: mod.error }
        : await runAction(mod.module, {
            // `{{ process.env.NAME }}`: the owner's variables, as the run's code reads them (env.cjs).
            props: /** @type {Record<string, unknown>} */ (
              resolveTemplates(step.props ?? {}, { steps, process: { env: process.env } })
            ),
            steps,
            emit,
            respond,
            delay,
          });
      if (out.error) {
        record("error", { exports: out.exports, error: shownError(out.error) });
        return end({ error: stepError(step, out.error) });
      }
      steps[step.name] = { ...out.exports, $return_value: out.ret };
      if (out.exit !== undefined) {
        record("exited", { return_value: out.ret, exports: out.exports });
        return end({ exit: { reason: out.exit } });
      }
      record("success", { return_value: out.ret, exports: out.exports });
      if (delayMs !== undefined) return end({ delay: { ms: delayMs, step: i } });
      continue;
    }
    /** @type {Record<string, unknown>} */
    const exported = {};
    /** @type {Array<Record<string, any>>} */
    const httpSends = [];
    const $ = makeDollar({ exported, httpSends, emit, respond, delay });
    /** @type {any} */ (globalThis).$send = legacySend;
    try {
      const mod = load(step);
      if (!mod || typeof mod.run !== "function") throw new Error(`step ${step.name} has no run method`);
      // `this.<prop>`: the props its code declares, with the values the server sent (step-props.cjs).
      const value = await mod.run.call(stepThis(mod, step.configuredProps), { steps, $ });
      const json = value === undefined ? undefined : JSON.parse(JSON.stringify(value) ?? "null");
      steps[step.name] = { ...exported, $return_value: json };
      await flushHttpSends(httpSends);
      record("success", { return_value: json, exports: exported });
      if (delayMs !== undefined) return end({ delay: { ms: delayMs, step: i } });
    } catch (e) {
      const err = /** @type {any} */ (e);
      if (isFlowExit(err)) {
        await flushHttpSends(httpSends);
        record("exited", { exports: exported });
        return end({ exit: { reason: exitReason(err) } });
      }
      record("error", { exports: exported, error: shownError(err) });
      return end({ error: stepError(step, err) });
    } finally {
      delete (/** @type {any} */ (globalThis).$send);
    }
  }
  return end();
}

/** An action step's module, or the error of loading it. @param {any} step @param {(step: any) => any} load */
function loadOrError(step, load) {
  try {
    return { module: load(step), error: undefined };
  } catch (e) {
    const err = /** @type {any} */ (e);
    return {
      module: undefined,
      error: {
        name: String(err?.name ?? "Error"),
        message: String(err?.message ?? e),
        stack: String(err?.stack ?? e),
      },
    };
  }
}

module.exports = { runSteps };
