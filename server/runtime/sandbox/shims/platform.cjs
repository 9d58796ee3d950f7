// @ts-check
/* eslint-disable @typescript-eslint/no-require-imports -- plain CommonJS by design: see worker.cjs */
"use strict";
/**
 * Our own `@pipedream/platform` for the sandbox, written from the vendor's documentation and
 * the package's observed behaviour (the vendor's code is under a licence that excludes a
 * platform like ours: it is never shipped or loaded). Every export of the vendor's package
 * (test/runtime/vendor-platform.test.ts checks the list against the registry):
 *   axios($, config[, signConfig]), axios.create, transformConfigForOauth  -> platform/axios.cjs
 *   getFileStream, getFileStreamAndMetadata                                -> platform/files.cjs
 *   sqlProp, sqlProxy (method mixins of SQL apps)                          -> platform/sql.cjs
 *   jsonStringifySafe, cloneSafe, ConfigurationError, the constants
 *   the legacy $send config checks, $end                                   -> platform/send.cjs
 * plus the `define*` helpers of `@pipedream/types` (types.cjs), which older components import
 * from here.
 */
const { axios, transformConfigForOauth } = require("./platform/axios.cjs");
const { getFileStream, getFileStreamAndMetadata } = require("./platform/files.cjs");
const { sqlProp, sqlProxy } = require("./platform/sql.cjs");
const { jsonStringifySafe, cloneSafe } = require("./platform/json.cjs");
const { ConfigurationError } = require("./platform/errors.cjs");
const send = require("./platform/send.cjs");
const types = require("./types.cjs");

module.exports = {
  axios,
  transformConfigForOauth,
  cloneSafe,
  jsonStringifySafe,
  getFileStreamAndMetadata,
  getFileStream,
  ConfigurationError,
  sqlProp,
  sqlProxy,
  /** Seconds between runs of a polling source that sets none (15 minutes). */
  DEFAULT_POLLING_SOURCE_TIMER_INTERVAL: 15 * 60,
  /** The vendor's own Gmail OAuth client's id (Gmail components compare an account's client with it). */
  PD_OFFICIAL_GMAIL_OAUTH_CLIENT_ID: "fnd4m13k1mjb6djallp1m9kr7o8kslcu",
  ...send,
  ...types,
};
