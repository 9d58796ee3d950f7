/**
 * An in-process REST call (server/mcp/inject.ts: an MCP tool's) takes the route's answer as the
 * object the handler returned, not as JSON text to parse again: serializing a page of events only
 * for the caller to parse it back cost as much as a tool's own work. Only vouched requests
 * (auth.ts: made by this process for a caller it admitted) are handed over; their HTTP body is
 * then a placeholder nobody reads.
 */
import type { FastifyInstance } from "fastify";

const handedOver = new WeakMap<object, unknown>();

/** The body an answer handed over is sent with (a light-my-request response is still whole). */
const PLACEHOLDER = '"handed over in-process"';

export function registerHandover(app: FastifyInstance): void {
  app.addHook("preSerialization", async (request, _reply, payload) => {
    if (!request.vouched) return payload;
    handedOver.set(request.raw, payload);
    return PLACEHOLDER;
  });
}

/** The answer to this in-process request, as an object, when it was handed over. */
export function takeHandedOver(raw: object): { value: unknown } | undefined {
  if (!handedOver.has(raw)) return undefined;
  const value = handedOver.get(raw);
  handedOver.delete(raw);
  return { value };
}
