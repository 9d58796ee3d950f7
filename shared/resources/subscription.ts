import * as z from "../zod.js";
import { UnixSeconds } from "./common.js";

/** The named channels of an emitter. `""` is the default channel. */
export const CHANNELS = { default: "", errors: "$errors", logs: "$logs" } as const;

/** `event_name=default` is the default channel `""` (decisions.md). */
export function normalizeChannel(name: string | undefined): string {
  return name === undefined || name === "default" ? "" : name;
}

const ChannelName = z.optional(
  z.string().check(z.maxLength(128), z.regex(/^\$?[A-Za-z0-9_.:-]*$/, "not a valid event name")),
);

export const Subscription = z.looseObject({
  id: z.string(),
  emitter_id: z.string(),
  listener_id: z.string(),
  event_name: z.string(),
  created_at: z.optional(UnixSeconds),
});
export type Subscription = z.infer<typeof Subscription>;

/** Parameters of `POST` and `DELETE /subscriptions` (query string or body). */
export const SubscriptionParams = z.object({
  emitter_id: z
    .string()
    .check(z.regex(/^(p|dc)_[A-Za-z0-9*]+$/, "must be a workflow or source id, or p_* / dc_*")),
  listener_id: z.string().check(z.regex(/^(p|dc)_[A-Za-z0-9]+$/, "must be a workflow or source id")),
  event_name: ChannelName,
});
export type SubscriptionParams = z.input<typeof SubscriptionParams>;

export const AutoSubscription = z.looseObject({
  id: z.string(),
  listener_id: z.string(),
  event_name: z.string(),
  created_at: UnixSeconds,
});
export type AutoSubscription = z.infer<typeof AutoSubscription>;

export const AutoSubscriptionParams = z.object({
  event_name: z.string().check(z.minLength(1), z.maxLength(128)),
  listener_id: z.string().check(z.regex(/^(p|dc)_[A-Za-z0-9]+$/, "must be a workflow or source id")),
});
export type AutoSubscriptionParams = z.input<typeof AutoSubscriptionParams>;
