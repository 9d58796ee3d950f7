/**
 * Who an API request acts for, handed down explicitly to the work it starts that is charged to a
 * user (an npm install deep in the compiler: runtime/npm/install-gate.ts). Work that no request
 * started (a queued run, a timer, the built-ins at start) has none.
 *
 * Explicit on purpose: an AsyncLocalStorage did this before, and on Node 20 and 22 it turns on
 * async hooks for the whole process once used, a cost on every promise of every request (8 to
 * 10 % of the server's CPU under an endpoint's load, profiled).
 */
export interface Requester {
  userId: string;
  admin: boolean;
}
