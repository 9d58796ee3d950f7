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
 */
"use strict";
const { loadBundle } = require("./loader.cjs");
// The one definition of `$end`'s marker (the shim components import `$end` from).
const { END_NEEDLE } = require("./shims/platform/send.cjs");

/** Whether a step's error is a flow exit rather than a failure. @param {any} err */
function isFlowExit(err) {
  return Boolean(err) && (typeof err === "object" || typeof err === "function") && (err.flowExit === true || Boolean(err[END_NEEDLE]));
}

/**
 * @param {{ steps: Array<{ id: string, name: string, bundle: any }>, packageDirs: Record<string,string>,
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
  for (const step of input.steps) {
    /** @type {Record<string, unknown>} */
    const exported = {};
    const $ = {
      send: {
        /** @param {unknown} data @param {string} [channel] */
        emit: (data, channel) => emits.push({ data: { raw_event: data ?? null }, channel: typeof channel === "string" ? channel : "" }),
      },
      /** @param {string} name @param {unknown} value */
      export: (name, value) => {
        exported[String(name)] = value;
      },
      flow: {
        /** @param {string} [reason] */
        exit: (reason) => {
          throw Object.assign(new Error(reason === undefined ? "$.flow.exit" : String(reason)), { flowExit: true });
        },
      },
    };
    /** @type {any} */ (globalThis).$send = legacySend;
    try {
      const mod = loadBundle(step.bundle, input.packageDirs);
      if (!mod || typeof mod.run !== "function") throw new Error(`step ${step.name} has no run method`);
      const value = await mod.run.call(mod, { steps, $ });
      const json = value === undefined ? undefined : JSON.parse(JSON.stringify(value) ?? "null");
      steps[step.name] = { ...exported, $return_value: json };
      returnValues[step.name] = json;
    } catch (e) {
      const err = /** @type {any} */ (e);
      if (isFlowExit(err)) break;
      return {
        returnValues,
        emits,
        error: {
          cellId: step.id,
          code: (err && typeof err.code === "string" && err.code) || (err && err.name) || "Error",
          message: err && err.message !== undefined ? String(err.message) : String(err),
          stack: (err && err.stack) || String(err),
        },
      };
    } finally {
      delete (/** @type {any} */ (globalThis).$send);
    }
  }
  return { returnValues, emits };
}

module.exports = { runSteps };
