/**
 * Subscriptions and auto-subscriptions of one owner. The listener must be the caller's own
 * source or workflow, and so must a concrete emitter (globs only ever match the caller's own
 * emitters, see store/repos/subscriptions.ts): anything else reads as "not found".
 */
import { newId } from "../../shared/ids.js";
import { normalizeChannel, type AutoSubscription, type Subscription } from "../../shared/resources/index.js";
import type { Db } from "../store/db.js";
import { forgetEmitterEvents } from "../store/repos/events.js";
import {
  deleteSubscription,
  forgetParticipant,
  insertAutoSubscription,
  listAutoSubscriptions,
  listSubscriptions,
  ownsParticipant,
  upsertSubscription,
  type SubscriptionRow,
} from "../store/repos/subscriptions.js";

export interface SubscriptionInput {
  emitter_id: string;
  listener_id: string;
  event_name?: string | undefined;
}

/** The listener or emitter is unknown or someone else's. */
export class ParticipantNotFoundError extends Error {
  constructor(readonly participantId: string) {
    super(`${participantId.startsWith("p_") ? "workflow" : "source"} ${participantId} not found`);
  }
}

const isGlob = (id: string) => id === "p_*" || id === "dc_*";

function toSubscription(r: SubscriptionRow): Subscription {
  return {
    id: r.id,
    emitter_id: r.emitter_id,
    listener_id: r.listener_id,
    event_name: r.channel,
    created_at: Number(r.created_at),
  };
}

export class SubscriptionService {
  constructor(private readonly db: Db) {}

  private async requireOwn(ownerId: string, id: string): Promise<void> {
    if (!(await ownsParticipant(this.db, ownerId, id))) throw new ParticipantNotFoundError(id);
  }

  private async checkPair(ownerId: string, input: SubscriptionInput): Promise<void> {
    if (input.emitter_id.includes("*") && !isGlob(input.emitter_id)) {
      throw new ParticipantNotFoundError(input.emitter_id);
    }
    await this.requireOwn(ownerId, input.listener_id);
    if (!isGlob(input.emitter_id)) await this.requireOwn(ownerId, input.emitter_id);
  }

  /** Creates the subscription, or returns the existing identical one. */
  async subscribe(ownerId: string, input: SubscriptionInput): Promise<Subscription> {
    await this.checkPair(ownerId, input);
    const row = await upsertSubscription(this.db, {
      id: newId("subscription"),
      owner_id: ownerId,
      emitter_id: input.emitter_id,
      listener_id: input.listener_id,
      channel: normalizeChannel(input.event_name),
      created_at: Math.floor(Date.now() / 1000),
    });
    return toSubscription(row);
  }

  /** True when a subscription was removed. */
  async unsubscribe(ownerId: string, input: SubscriptionInput): Promise<boolean> {
    return deleteSubscription(this.db, ownerId, input.emitter_id, input.listener_id, normalizeChannel(input.event_name));
  }

  async list(ownerId: string): Promise<Subscription[]> {
    return (await listSubscriptions(this.db, ownerId)).map(toSubscription);
  }

  async autoSubscribe(ownerId: string, input: { listener_id: string; event_name: string }): Promise<AutoSubscription> {
    await this.requireOwn(ownerId, input.listener_id);
    const row = {
      id: newId("autoSubscription"),
      owner_id: ownerId,
      listener_id: input.listener_id,
      channel: normalizeChannel(input.event_name),
      created_at: Math.floor(Date.now() / 1000),
    };
    await insertAutoSubscription(this.db, row);
    return { id: row.id, listener_id: row.listener_id, event_name: row.channel, created_at: row.created_at };
  }

  /**
   * Hook for whoever creates a source or workflow: gives the new emitter the owner's
   * auto-subscriptions as ordinary subscriptions.
   */
  async participantCreated(ownerId: string, id: string): Promise<void> {
    for (const auto of await listAutoSubscriptions(this.db, ownerId)) {
      if (auto.listener_id === id) continue;
      await upsertSubscription(this.db, {
        id: newId("subscription"),
        owner_id: ownerId,
        emitter_id: id,
        listener_id: auto.listener_id,
        channel: auto.channel,
        created_at: Math.floor(Date.now() / 1000),
      });
    }
  }

  /** Hook for whoever deletes a source or workflow: its subscriptions and events go with it. */
  async participantDeleted(id: string): Promise<void> {
    await forgetParticipant(this.db, id);
    await forgetEmitterEvents(this.db, id);
  }
}
