// @ts-check
/* eslint-disable @typescript-eslint/no-require-imports -- plain CommonJS by design: see worker.cjs */
/**
 * Inside the sandbox: runs a workflow's steps in order, for the workflows concern.
 * A step is `export default defineComponent({ async run({ steps, $ }) {...} })`; it sees
 * `steps.trigger.event` and earlier steps' `$return_value` (and `$.export`ed values);
 * `$.send.emit(data, channel?)` collects `{raw_event: data}`, legacy `$send.emit(x)` collects x.
 * The first step that throws stops the run; its error is reported with the step's id.
 */
"use strict";
const { loadBundle } = require("./loader.cjs");

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
        exit: () => {
          throw Object.assign(new Error("$.flow.exit"), { flowExit: true });
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
      if (err && err.flowExit) break;
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
