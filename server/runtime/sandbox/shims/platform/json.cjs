// @ts-check
"use strict";

/**
 * `JSON.stringify` that never throws: a reference back to an object being written (a cycle)
 * is left out, a BigInt is written as a string. Only the slow path walks the value; most
 * values stringify on the first try. Returns undefined for what JSON cannot hold at all.
 * @param {unknown} value
 * @returns {string | undefined}
 */
function jsonStringifySafe(value) {
  try {
    return JSON.stringify(value);
  } catch {
    /** @type {object[]} */
    const path = [];
    return JSON.stringify(value, function replacer(_key, v) {
      if (typeof v === "bigint") return v.toString();
      if (typeof v !== "object" || v === null) return v;
      // `this` is the object holding v: drop the path below it, then check for a cycle.
      while (path.length > 0 && path[path.length - 1] !== this) path.pop();
      if (path.includes(v)) return undefined;
      path.push(v);
      return v;
    });
  }
}

/** A plain JSON copy of a value (see jsonStringifySafe), or null when there is none. @param {unknown} value */
function cloneSafe(value) {
  const text = jsonStringifySafe(value);
  return text === undefined ? null : JSON.parse(text);
}

module.exports = { jsonStringifySafe, cloneSafe };
