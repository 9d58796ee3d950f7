/**
 * `listen <source> --forward-to <url>`: a relay client. Follows the source (the same live stream
 * as `events -f`, resuming after a dropped connection) and sends each new event to a URL, one at
 * a time and in order (cli/follow/forwarder.ts). `--replay N` first forwards the last N retained
 * events. Runs until Ctrl-C, which exits 0.
 */
import type { Command } from "commander";
import { normalizeChannel } from "../../shared/resources/index.js";
import type { Context } from "../context.js";
import { UsageError } from "../errors.js";
import { followBounded } from "../follow/bounded.js";
import { parseTarget } from "../follow/forward-request.js";
import { Forwarder } from "../follow/forwarder.js";
import { newestId, recentEvents } from "../follow/recent.js";
import { forwardJson, forwardLine } from "../output/forward-line.js";
import { nonNegativeInt, type Act } from "../options.js";
import { resolveSource } from "../sources.js";

export function registerListen(program: Command, act: Act) {
  program
    .command("listen")
    .description("forward a source's new events to a URL (e.g. your app on localhost) until Ctrl-C")
    .argument("<source>", "source id or name")
    .requiredOption("--forward-to <url>", "where to send each event, e.g. http://localhost:3000/webhooks")
    .option("--channel <name>", "the channel (default: the default channel; $logs, $errors or any name)")
    .option("--replay <n>", "first forward the last N retained events", nonNegativeInt("--replay"), 0)
    .option("--retries <n>", "tries again after a refused connection, timeout or 5xx, with growing pauses", nonNegativeInt("--retries"), 5)
    .addHelpText(
      "after",
      `
An HTTP request event (what an HTTP source emits) is sent as the same request: its method, the
URL plus its path and query, its headers (not hop-by-hop ones, host or content-length), its raw
body. Any other event is POSTed as JSON with x-headwater-event-id and x-headwater-source-id.
Events go out one at a time, in order; a failing one is retried before the next is sent. At most
1,000 wait in memory: then the stream pauses until the target has caught up, and resumes after the
last event taken (the server keeps the events meanwhile, within the source's retention).`,
    )
    .action(act((ctx, [ref], opts) => listen(ctx, ref!, opts)));
}

async function listen(ctx: Context, ref: string, opts: Record<string, unknown>): Promise<void> {
  const target = parseTarget(opts.forwardTo as string);
  if (!target) throw new UsageError(`--forward-to: not an http(s) URL: ${opts.forwardTo as string}`);
  const channel = normalizeChannel(opts.channel as string | undefined);
  const retries = opts.retries as number;
  ctx.endsOnSignal();
  const conn = await ctx.connect();
  const source = await resolveSource(conn.client, ref);
  const { out } = ctx;

  const forwarder = new Forwarder({
    target,
    sourceId: source.id,
    retries,
    signal: ctx.signal,
    onAttempt: (a) => (out.json ? out.jsonLine(forwardJson(a)) : out.stdout.write(forwardLine(a, retries, out.style) + "\n")),
  });

  const replayed = await recentEvents(conn.client, source.id, [channel], opts.replay as number);
  const after = replayed.at(-1)?.id ?? (await newestId(conn.client, source.id, [channel]));
  out.info(
    out.errStyle.dim(
      `forwarding ${channel === "" ? "events" : channel} of ${source.name} (${source.id}) to ${target.toString()}` +
        `${replayed.length > 0 ? `, the last ${replayed.length} first` : ""}; Ctrl-C stops`,
    ),
  );
  for (const e of replayed) forwarder.push(e);

  await followBounded({
    client: conn.client,
    apiKey: conn.apiKey,
    sourceId: source.id,
    channels: [channel],
    after,
    signal: ctx.signal,
    take: (e) => forwarder.push(e),
    waiting: () => forwarder.waiting,
    drained: (below) => forwarder.drained(below),
    onStatus: (line) => out.info(out.errStyle.yellow(line)),
    onPause: (n) =>
      out.info(
        out.errStyle.yellow(
          `${n} events wait for ${target.host}: the stream pauses until they are forwarded (the server keeps new events meanwhile, within the source's retention)`,
        ),
      ),
    onResume: () => out.info(out.errStyle.yellow("caught up; the stream resumes after the last event taken")),
  });
  await forwarder.idle();
  const summary = `stopped: ${forwarder.delivered} forwarded`;
  const failed = forwarder.failed > 0 ? `, ${forwarder.failed} not delivered` : "";
  const left = forwarder.waiting > 0 ? `, ${forwarder.waiting} received but not yet forwarded` : "";
  out.info(out.errStyle.dim(summary + failed + left));
}
