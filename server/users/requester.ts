/**
 * Who a request acts for, wherever its work goes (the component compiler installing an npm
 * package, deep in the runtime): set by `route()` around every API handler. Work that no request
 * started (a queued run, a timer) has no requester.
 */
import { AsyncLocalStorage } from "node:async_hooks";

export interface Requester {
  userId: string;
  admin: boolean;
}

const store = new AsyncLocalStorage<Requester>();

/** Runs `fn` on behalf of `requester`. */
export function asRequester<T>(requester: Requester, fn: () => T): T {
  return store.run(requester, fn);
}

/** The user the current work is done for, or undefined for the server's own work. */
export function currentRequester(): Requester | undefined {
  return store.getStore();
}
