/** The `$errors` event recorded on a listener when a delivery would exceed the hop bound. */
import type { EmitInput } from "../services.js";
import { CYCLE_ERROR_CODE, CYCLE_ERROR_HOPS, MAX_DELIVERY_HOPS } from "./hops.js";
import { errorEvent } from "./error-event.js";

export interface CycleContext {
  listenerId: string;
  ownerId: string;
  emitterId: string;
  eventId: string;
  channel: string;
  event: unknown;
}

export function cycleErrorInput(c: CycleContext, now = new Date()): EmitInput {
  const message =
    `delivery of event ${c.eventId} from ${c.emitterId} to ${c.listenerId} stopped: it has already ` +
    `travelled ${MAX_DELIVERY_HOPS} subscription hops (a subscription cycle?)`;
  return {
    emitterId: c.listenerId,
    ownerId: c.ownerId,
    channel: "$errors",
    hops: CYCLE_ERROR_HOPS,
    event: errorEvent({
      listenerId: c.listenerId,
      ownerId: c.ownerId,
      originalEvent: c.event,
      contextId: c.eventId,
      sourceType: c.emitterId.startsWith("p_") ? "WORKFLOW" : "SOURCE",
      code: CYCLE_ERROR_CODE,
      message,
      cellId: "",
      stack: `Error: ${message}`,
      now,
    }),
  };
}
