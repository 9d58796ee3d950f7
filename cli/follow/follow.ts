/**
 * Following a source's events live. The default channel and `$logs` / `$errors` come over the
 * server's SSE streams through the shared SSE client, which reconnects with backoff and sends
 * `Last-Event-ID`; the server replays what was missed, and ids at or before the last one shown
 * are skipped, so a dropped connection or a server restart gives no gap and no duplicate.
 * Other named channels have no stream: they are polled with `before=<last id>`.
 */
import { ApiError, type Client } from "../../shared/client/index.js";
import type { EventSummary } from "../../shared/resources/index.js";
import { connectSse, toEventSummary } from "../../shared/sse/index.js";
import { CliError } from "../errors.js";
import { newer } from "./order.js";

export interface FollowOptions {
  client: Client;
  apiKey: string;
  sourceId: string;
  /** Channels shown: `[""]`, or any of `$logs` / `$errors`, or one other named channel. */
  channels: string[];
  /** Resume after this id (the newest event already shown); undefined: from the oldest retained. */
  after: string | undefined;
  signal: AbortSignal;
  onEvent: (e: EventSummary) => void;
  onStatus: (line: string) => void;
  pollMs?: number;
}

const OBSERVED = new Set(["$logs", "$errors"]);

/** Runs until the signal is aborted (resolves) or the stream can never work (rejects). */
export function followEvents(opts: FollowOptions): Promise<void> {
  let last = opts.after;
  const deliver = (e: EventSummary) => {
    if (!opts.channels.includes(e.metadata.name)) return;
    if (last !== undefined && !newer(e.id, last)) return;
    last = e.id;
    opts.onEvent(e);
  };
  const kind = opts.channels.every((c) => c === "") ? "emits" : opts.channels.every((c) => OBSERVED.has(c)) ? "observations" : "poll";
  if (kind === "poll") return poll(opts, () => last, deliver);

  return new Promise((resolve, reject) => {
    let lost = false;
    const conn = connectSse({
      url: opts.client.sourceStreamUrl(opts.sourceId, kind),
      headers: { Authorization: `Bearer ${opts.apiKey}` },
      // "0-0" asks for every retained event: the channel was empty when we looked, so each is new.
      lastEventId: last ?? "0-0",
      onMessage: (m) => {
        const e = toEventSummary(m.data, { messageId: m.id, emitterId: opts.sourceId, channel: opts.channels[0] ?? "" });
        if (e) deliver(e);
      },
      onState: (s) => {
        if (s.state === "reconnecting") {
          lost = true;
          opts.onStatus(`connection lost (${s.message ?? "unknown reason"}); retrying in ${Math.max(1, Math.round((s.retryInMs ?? 0) / 1000))}s`);
        } else if (s.state === "open" && lost) {
          lost = false;
          opts.onStatus("reconnected; resuming after the last event shown");
        } else if (s.state === "unauthorized" || (s.state === "closed" && s.status !== undefined)) {
          stop();
          reject(new CliError(s.message ?? `the stream ended (${s.status})`));
        }
      },
    });
    const stop = () => {
      opts.signal.removeEventListener("abort", onAbort);
      conn.close();
    };
    const onAbort = () => {
      stop();
      resolve();
    };
    if (opts.signal.aborted) onAbort();
    else opts.signal.addEventListener("abort", onAbort, { once: true });
  });
}

async function poll(opts: FollowOptions, lastId: () => string | undefined, deliver: (e: EventSummary) => void): Promise<void> {
  const channel = opts.channels[0] ?? "";
  let failing = false;
  while (!opts.signal.aborted) {
    try {
      for (;;) {
        const page = await opts.client.listSourceEvents(opts.sourceId, { event_name: channel, before: lastId(), limit: 100, expand: "event" });
        for (const e of [...page.data].reverse()) deliver(e);
        if (page.data.length < 100) break;
      }
      if (failing) opts.onStatus("reconnected; resuming after the last event shown");
      failing = false;
    } catch (err) {
      // A refused key or a deleted source will not get better by asking again.
      if (err instanceof ApiError && [401, 403, 404].includes(err.status)) throw err;
      if (!failing) opts.onStatus(`cannot read events (${(err as Error).message}); retrying`);
      failing = true;
    }
    await sleep(opts.pollMs ?? 1000, opts.signal);
  }
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const t = setTimeout(done, ms);
    function done() {
      clearTimeout(t);
      signal.removeEventListener("abort", done);
      resolve();
    }
    signal.addEventListener("abort", done, { once: true });
  });
}
