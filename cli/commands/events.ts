/**
 * `events <source>`: the last N events, oldest first, and with `-f` the live stream after them.
 * `--search TEXT` keeps only events whose data or summary contains TEXT (the server's `q`, so
 * it looks through every retained event; live ones are matched the same way).
 * `logs <source>` is the same on `$logs`. `events delete <source> --from ID --to ID` deletes a range.
 */
import { CHANNELS, normalizeChannel, type EventSummary } from "../../shared/resources/index.js";
import type { Context } from "../context.js";
import type { Command } from "commander";
import { followEvents } from "../follow/follow.js";
import { newestId, recentEvents } from "../follow/recent.js";
import { eventLine } from "../output/event-line.js";
import { eventId, nonNegativeInt, type Act } from "../options.js";
import { resolveSource } from "../sources.js";
import { matchesSearch } from "../../shared/search-match.js";

export function registerEvents(program: Command, act: Act) {
  const events = program
    .command("events")
    .description("show a source's last events; -f follows new ones as they arrive")
    .argument("<source>", "source id or name")
    .option("-n, --lines <n>", "how many recent events to show", nonNegativeInt("-n"), 10)
    .option("-f, --follow", "keep printing new events (resumes after a dropped connection; Ctrl-C stops)")
    .option("--channel <name>", "the channel (default: the default channel; $logs, $errors or any name)")
    .option("-s, --search <text>", "only events whose data or summary contains the text (case-insensitive)")
    .action(act((ctx, [ref], opts) => showEvents(ctx, ref!, normalizeChannel(opts.channel as string | undefined), opts)));
  events
    .command("delete")
    .description("delete a source's events from one id to another (inclusive)")
    .argument("<source>", "source id or name")
    .requiredOption("--from <id>", "the first event id to delete", eventId)
    .requiredOption("--to <id>", "the last event id to delete", eventId)
    .option("--channel <name>", "the channel (default: the default channel)")
    .action(act((ctx, [ref], opts) => deleteEvents(ctx, ref!, opts)));
  program
    .command("logs")
    .description("show a source's $logs (console output); -f follows them")
    .argument("<source>", "source id or name")
    .option("-n, --lines <n>", "how many recent lines to show", nonNegativeInt("-n"), 10)
    .option("-f, --follow", "keep printing new log lines (Ctrl-C stops)")
    .action(act((ctx, [ref], opts) => showEvents(ctx, ref!, CHANNELS.logs, opts)));
}

async function showEvents(ctx: Context, ref: string, channel: string, opts: Record<string, unknown>): Promise<void> {
  const follow = opts.follow === true;
  if (follow) ctx.endsOnSignal();
  const conn = await ctx.connect();
  const source = await resolveSource(conn.client, ref);
  const print = (e: EventSummary) => (ctx.out.json ? ctx.out.jsonLine(e) : ctx.out.stdout.write(eventLine(e, ctx.out.style) + "\n"));
  const q = typeof opts.search === "string" && opts.search.trim() !== "" ? opts.search : undefined;

  const recent = await recentEvents(conn.client, source.id, [channel], opts.lines as number, q);
  for (const e of recent) print(e);
  if (!follow) {
    if (recent.length === 0 && !ctx.out.json) {
      ctx.out.info(`no events ${q ? `matching "${q}" ` : ""}on ${channelName(channel)} of ${source.name} (${source.id})`);
    }
    return;
  }
  const after = recent.at(-1)?.id ?? (await newestId(conn.client, source.id, [channel]));
  if (ctx.out.stderr.isTTY) ctx.out.info(ctx.out.errStyle.dim(`following ${channelName(channel)} of ${source.name} (${source.id}); Ctrl-C stops`));
  await followEvents({
    client: conn.client,
    apiKey: conn.apiKey,
    sourceId: source.id,
    channels: [channel],
    after,
    signal: ctx.signal,
    onEvent: q ? (e) => matchesSearch(e, q) && print(e) : print,
    onStatus: (line) => ctx.out.info(ctx.out.errStyle.yellow(line)),
  });
}

async function deleteEvents(ctx: Context, ref: string, opts: Record<string, unknown>): Promise<void> {
  const { client } = await ctx.connect();
  const source = await resolveSource(client, ref);
  const event_name = normalizeChannel(opts.channel as string | undefined);
  await client.deleteSourceEvents(source.id, { start_id: opts.from as string, end_id: opts.to as string, event_name });
  if (ctx.out.json) ctx.out.jsonLine({ id: source.id, from: opts.from, to: opts.to, event_name, accepted: true });
  else ctx.out.say(`deleting events ${opts.from as string} to ${opts.to as string} of ${source.name} (${source.id}); done within a second`);
}

const channelName = (c: string) => (c === "" ? "the default channel" : c);
