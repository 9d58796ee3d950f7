/**
 * `subscribe <emitter> <listener>`, `subscribe --auto <event_name> <listener>` and
 * `unsubscribe <emitter> <listener>`: emitters and listeners are source or workflow ids or names.
 */
import type { Command } from "commander";
import { normalizeChannel } from "../../shared/resources/index.js";
import type { Context } from "../context.js";
import type { Act } from "../options.js";
import { resolveParticipant } from "../sources.js";

export function registerSubscribe(program: Command, act: Act) {
  program
    .command("subscribe")
    .description("deliver an emitter's events to a listener (with --auto: of every source or workflow made later)")
    .argument("<emitter>", "source or workflow id or name (dc_* / p_*: all of them); with --auto, an event name")
    .argument("<listener>", "source or workflow id or name")
    .option("--channel <name>", "the emitter's channel (default: the default channel)")
    .option("--auto", "subscribe the listener to <event_name> of every source and workflow created from now on")
    .action(act((ctx, [first, listener], opts) => subscribe(ctx, first!, listener!, opts)));
  program
    .command("unsubscribe")
    .description("stop delivering an emitter's events to a listener")
    .argument("<emitter>", "source or workflow id or name")
    .argument("<listener>", "source or workflow id or name")
    .option("--channel <name>", "the emitter's channel (default: the default channel)")
    .action(act((ctx, [emitter, listener], opts) => unsubscribe(ctx, emitter!, listener!, opts.channel as string | undefined)));
}

async function subscribe(ctx: Context, first: string, listenerRef: string, opts: Record<string, unknown>) {
  const { client } = await ctx.connect();
  const listener_id = await resolveParticipant(client, listenerRef);
  if (opts.auto) {
    const auto = await client.createAutoSubscription({ event_name: first, listener_id });
    if (ctx.out.json) ctx.out.jsonLine(auto);
    else ctx.out.say(`auto-subscribed ${listener_id} to "${first}" of every new source and workflow (${auto.id})`);
    return;
  }
  const emitter_id = await resolveParticipant(client, first, true);
  const event_name = normalizeChannel(opts.channel as string | undefined);
  const sub = await client.createSubscription({ emitter_id, listener_id, event_name });
  if (ctx.out.json) ctx.out.jsonLine(sub);
  else ctx.out.say(`subscribed ${listener_id} to ${emitter_id}${event_name ? ` (${event_name})` : ""}: ${sub.id}`);
}

async function unsubscribe(ctx: Context, emitterRef: string, listenerRef: string, channel: string | undefined) {
  const { client } = await ctx.connect();
  const emitter_id = await resolveParticipant(client, emitterRef, true);
  const listener_id = await resolveParticipant(client, listenerRef);
  const event_name = normalizeChannel(channel);
  await client.deleteSubscription({ emitter_id, listener_id, event_name });
  if (ctx.out.json) ctx.out.jsonLine({ emitter_id, listener_id, event_name, deleted: true });
  else ctx.out.say(`unsubscribed ${listener_id} from ${emitter_id}${event_name ? ` (${event_name})` : ""}`);
}
