// @ts-check
"use strict";
/**
 * Our own `@pipedream/types`: at run time the vendor's package is only the `define*` helpers
 * that give TypeScript its types; each returns what it is given.
 */

/** @template T @param {T} x @returns {T} */
const identity = (x) => x;

module.exports = {
  defineApp: identity,
  defineSource: identity,
  defineAction: identity,
  // Older components call these two (as globals too: see worker.cjs).
  defineComponent: identity,
  definePropDefinitions: identity,
};
