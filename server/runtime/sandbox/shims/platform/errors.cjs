// @ts-check
"use strict";

/**
 * A mistake in how a component is set up (a missing prop, a method an app must supply), as
 * opposed to a failure of the service it talks to. `exposeStack` says whether the stack is
 * worth showing to the user; by default only the message is.
 */
class ConfigurationError extends Error {
  /** @param {string} message @param {boolean} [exposeStack] */
  constructor(message, exposeStack = false) {
    super(message);
    this.name = "ConfigurationError";
    this.exposeStack = exposeStack;
  }
}

module.exports = { ConfigurationError };
