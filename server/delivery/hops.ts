/**
 * The cycle bound. An event's `hops` counts the subscription deliveries that led to it: an
 * event emitted by an HTTP request or a timer has 0 hops; a listener run by a delivery of an
 * event with h hops emits events with h + 1. A delivery that would exceed MAX_DELIVERY_HOPS is
 * not made; the listener's `$errors` gets a SUBSCRIPTION_CYCLE error instead.
 */
export const MAX_DELIVERY_HOPS = 8;

/** Hops of the events a cycle error creates: above the bound, so they are never routed on. */
export const CYCLE_ERROR_HOPS = MAX_DELIVERY_HOPS + 1;

export const CYCLE_ERROR_CODE = "SUBSCRIPTION_CYCLE";
