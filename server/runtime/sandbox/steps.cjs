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
 */
"use strict";
const { loadBundle } = require("./loader.cjs");
// The one definition of `$end`'s marker (the shim components import `$end` from).
const { runAction, makeDollar, resolveTemplates, isFlowExit, flushHttpSends } = require("./action.cjs");

/** A step's error as the run reports it. @param {{id: string}} step @param {any} err */
function stepError(step, err) {
  return {
    cellId: step.id,
    code: (err && typeof err.code === "string" && err.code) || (err && err.name) || "Error",
    message: err && err.message !== undefined ? String(err.message) : String(err),
    stack: (err && err.stack) || String(err),
  };
}

/**
 * @param {{ steps: Array<{ id: string, name: string, bundle: any, action?: string, props?: Record<string, unknown> }>, packageDirs: Record<string,string>,
 *           triggerEvent: unknown, context: Record<string, unknown> }} input
 */
async function runSteps(input) {
  /** @type {Array<{ data: unknown, channel: string }>} */
  const emits = [];
  /** @type {Record<string, unknown>} */
  const returnValues = {};
  /** @type {Record<string, any>} */
  const steps = { trigger: { event: input.triggerEvent, context: input.context } };
  const legacySend = {
    /** @param {unknown} x @param {string} [channel] */
    emit: (x, channel) => emits.push({ data: x ?? null, channel: typeof channel === "string" ? channel : "" }),
  };
  /** @param {unknown} data @param {string} channel */
  const emit = (data, channel) => emits.push({ data: { raw_event: data ?? null }, channel });
  for (const step of input.steps) {
    if (step.action !== undefined) {
      const mod = loadOrError(step, input.packageDirs);
      const out = mod.error
        ? { ret: undefined, exports: {}, error: mod.error }
        : await runAction(mod.module, { props: /** @type {Record<string, unknown>} */ (resolveTemplates(step.props ?? {}, { steps })), steps, emit });
      if (out.error) return { returnValues, emits, error: stepError(step, out.error) };
      steps[step.name] = { ...out.exports, $return_value: out.ret };
      returnValues[step.name] = out.ret;
      if (out.exit !== undefined) break;
      continue;
    }
    /** @type {Record<string, unknown>} */
    const exported = {};
    /** @type {Array<Record<string, any>>} */
    const httpSends = [];
    const $ = makeDollar({ exported, httpSends, emit });
    /** @type {any} */ (globalThis).$send = legacySend;
    try {
      const mod = loadBundle(step.bundle, input.packageDirs);
      if (!mod || typeof mod.run !== "function") throw new Error(`step ${step.name} has no run method`);
      const value = await mod.run.call(mod, { steps, $ });
      const json = value === undefined ? undefined : JSON.parse(JSON.stringify(value) ?? "null");
      steps[step.name] = { ...exported, $return_value: json };
      returnValues[step.name] = json;
      await flushHttpSends(httpSends);
    } catch (e) {
      const err = /** @type {any} */ (e);
      if (isFlowExit(err)) {
        await flushHttpSends(httpSends);
        break;
      }
      return { returnValues, emits, error: stepError(step, err) };
    } finally {
      delete (/** @type {any} */ (globalThis).$send);
    }
  }
  return { returnValues, emits };
}

/** An action step's module, or the error of loading it. @param {{bundle: any}} step @param {Record<string,string>} packageDirs */
function loadOrError(step, packageDirs) {
  try {
    return { module: loadBundle(step.bundle, packageDirs), error: undefined };
  } catch (e) {
    const err = /** @type {any} */ (e);
    return { module: undefined, error: { name: String(err?.name ?? "Error"), message: String(err?.message ?? e), stack: String(err?.stack ?? e) } };
  }
}

module.exports = { runSteps };
