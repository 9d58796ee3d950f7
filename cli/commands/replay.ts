/**
 * `replay <source> [--from ID] [--to ID] [--listener X] [--channel NAME]`: delivers retained
 * events again to the channel's listeners (`POST /sources/{id}/events/replay`), with the same
 * ids and data as the first time. No range: every retained event of the channel. The server
 * answers once the deliveries are durably queued; this says how many.
 */
import type { Command } from "commander";
import { normalizeChannel } from "../../shared/resources/index.js";
import type { Context } from "../context.js";
import { eventId, type Act } from "../options.js";
import { resolveParticipant, resolveSource } from "../sources.js";

export function registerReplay(program: Command, act: Act) {
  program
    .command("replay")
    .description("deliver a source's retained events again to its listeners (a range, or all)")
    .argument("<source>", "source id or name")
    .option("--from <id>", "the first event id to replay (default: the oldest retained)", eventId)
    .option("--to <id>", "the last event id to replay (default: the newest)", eventId)
    .option("--listener <id|name>", "only this listener (a workflow or source that listens to the channel)")
    .option("--channel <name>", "the channel (default: the default channel)")
    .action(act((ctx, [ref], opts) => replay(ctx, ref!, opts)));
}

async function replay(ctx: Context, ref: string, opts: Record<string, unknown>): Promise<void> {
  const { client } = await ctx.connect();
  const source = await resolveSource(client, ref);
  const listener = typeof opts.listener === "string" ? await resolveParticipant(client, opts.listener) : undefined;
  const event_name = normalizeChannel(opts.channel as string | undefined);
  const r = await client.replaySourceEvents(source.id, {
    start_id: opts.from as string | undefined,
    end_id: opts.to as string | undefined,
    event_name: event_name || undefined,
    listener_id: listener,
  });
  const { out } = ctx;
  if (out.json) {
    out.jsonLine({ id: source.id, from: opts.from ?? null, to: opts.to ?? null, event_name, listener_id: listener ?? null, ...r });
    return;
  }
  const range = opts.from || opts.to ? ` (${(opts.from as string | undefined) ?? "oldest"} to ${(opts.to as string | undefined) ?? "newest"})` : "";
  const who = listener ? `listener ${listener}` : "every listener";
  const events = `${r.events} ${r.events === 1 ? "event" : "events"}`;
  const deliveries = `${r.deliveries} ${r.deliveries === 1 ? "delivery" : "deliveries"}`;
  out.say(`queued ${events} of ${source.name} (${source.id})${range} for ${who}: ${deliveries}`);
  if (r.deliveries === 0 && r.events > 0) out.info(out.errStyle.yellow("nothing listens to this channel: subscribe a workflow or source first"));
}
