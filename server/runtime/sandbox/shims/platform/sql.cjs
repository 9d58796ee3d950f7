// @ts-check
/* eslint-disable @typescript-eslint/no-require-imports -- plain CommonJS by design: see worker.cjs */
"use strict";
const { ConfigurationError } = require("./errors.cjs");

/** A method an app must supply itself: calling the default is a configuration mistake. @param {string} name */
function mustImplement(name) {
  return function notImplemented() {
    throw new ConfigurationError(`${name} is not implemented by this app`);
  };
}

/**
 * Mixins SQL apps spread into their methods (`...sqlProxy.methods`): the app overrides each
 * with its own driver code; what it leaves out throws ConfigurationError when called.
 * `sqlProp`: turning an `sql` prop's value into a query, and the database's schema.
 */
const sqlProp = {
  methods: {
    executeQueryAdapter: mustImplement("executeQueryAdapter"),
    getSchema: mustImplement("getSchema"),
  },
};

/** `sqlProxy`: the client configuration, running a query, and adapting it for a proxy. */
const sqlProxy = {
  methods: {
    getClientConfiguration: mustImplement("getClientConfiguration"),
    executeQuery: mustImplement("executeQuery"),
    proxyAdapter: mustImplement("proxyAdapter"),
  },
};

module.exports = { sqlProp, sqlProxy };
