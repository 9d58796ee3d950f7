// @ts-check
/* eslint-disable @typescript-eslint/no-require-imports -- plain CommonJS by design: see worker.cjs */
"use strict";
/**
 * The npm libraries the shim is built on (axios, mime-types), loaded from the absolute entry
 * files the host gives the worker (see sandbox/mounts.ts: the worker may read only those
 * packages' folders, and cannot look them up by name). Loaded on first use, so describing a
 * component never touches them.
 */

/** @type {Record<string, string>} */
let entries = {};
/** @type {Map<string, any>} */
const loaded = new Map();

/** @param {Record<string, string>} paths library name -> absolute entry file */
function configure(paths) {
  entries = { ...paths };
}

/** @param {string} name */
function library(name) {
  const cached = loaded.get(name);
  if (cached) return cached;
  const entry = entries[name];
  if (!entry) throw new Error(`@pipedream/platform: the ${name} library is not available in this sandbox`);
  const mod = require(entry);
  loaded.set(name, mod);
  return mod;
}

module.exports = { configure, library };
