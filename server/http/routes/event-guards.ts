/**
 * What the event routes (routes/events.ts, routes/inspection.ts) share: the events module's
 * refusals as 4xx answers, and the ownership check of the emitter in the path (another user's
 * source or workflow is a 404, as is an id of the wrong kind).
 */
import { ERROR_CODES } from "../../../shared/resources/index.js";
import type { EventServices } from "../../events/index.js";
import { EventQueryError } from "../../events/reads.js";
import { ReplayListenerError } from "../../events/replay.js";
import { badRequest, notFound } from "../errors.js";

export async function asHttp<T>(fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    if (err instanceof EventQueryError) {
      throw badRequest(err.message, err.code === "bad_cursor" ? ERROR_CODES.badCursor : ERROR_CODES.badRequest);
    }
    if (err instanceof ReplayListenerError) throw notFound(err.message);
    throw err;
  }
}

export type EmitterPrefix = "dc_" | "p_";

/** Resolves when `id` names an emitter of this kind that `userId` owns; a 404 otherwise. */
export async function requireOwnEmitter(
  events: EventServices,
  userId: string,
  id: string,
  prefix: EmitterPrefix,
): Promise<void> {
  if (!id.startsWith(prefix) || !(await events.owns(userId, id))) {
    throw notFound(prefix === "dc_" ? `source ${id}` : `workflow ${id}`);
  }
}
