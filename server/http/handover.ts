/**
 * An in-process REST call (server/mcp/inject.ts: an MCP tool's) takes the route's answer as the
 * object the handler returned, not as JSON text to parse again: serializing a page of events only
 * for the caller to parse it back cost as much as a tool's own work. Only a request that asks
 * (HANDOVER_HEADER) and is vouched for (auth.ts: made by this process for a caller it admitted)
 * is handed over; its HTTP body is then a placeholder nobody reads. Streams never ask. The
 * object may be the handler's own (a record a service keeps): the taker reads it, never changes
 * it, as the MCP tools build their answers from copies.
 */
import type { FastifyInstance } from "fastify";

/** The header of an in-process request that takes its answer as an object. */
export const HANDOVER_HEADER = "x-headwater-handover";

const handedOver = new WeakMap<object, unknown>();

/** The body an answer handed over is sent with (a light-my-request response is still whole). */
const PLACEHOLDER = '"handed over in-process"';

export function registerHandover(app: FastifyInstance): void {
  // (A callback hook: it runs for every answer of the API, and most pass straight through.)
  app.addHook("preSerialization", (request, _reply, payload, done) => {
    if (!request.vouched || request.headers[HANDOVER_HEADER] === undefined) return done(null, payload);
    handedOver.set(request.raw, payload);
    done(null, PLACEHOLDER);
  });
}

/** The answer to this in-process request, as an object, when it was handed over. */
export function takeHandedOver(raw: object): { value: unknown } | undefined {
  if (!handedOver.has(raw)) return undefined;
  const value = handedOver.get(raw);
  handedOver.delete(raw);
  return { value };
}
