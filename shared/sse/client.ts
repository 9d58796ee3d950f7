/**
 * A server-sent-events client over `fetch` streaming, for Node and the browser. Unlike the
 * browser's EventSource it can send an Authorization header, and it is explicit about its state:
 *
 *   connecting ─► open ─► (stream ends, network error, no bytes for `watchdogMs`) ─► reconnecting ─► open ...
 *                 └─► 401/403 ─► unauthorized (final)      404 ─► closed (final)      close() ─► closed
 *
 * Reconnects wait with exponential backoff and jitter and send `Last-Event-ID`, so a server that
 * supports resume (ours does) replays what was missed. Any byte, including the `:sse-handshake`
 * comments the server sends every 15 s, keeps the watchdog quiet.
 */
import { createParser } from "eventsource-parser";
import { backoffDelay, type BackoffOptions } from "./backoff.js";

export type SseState = "connecting" | "open" | "reconnecting" | "closed" | "unauthorized";

export interface SseStateInfo {
  state: SseState;
  /** Why, in words a user understands (reconnecting, closed, unauthorized). */
  message?: string;
  /** HTTP status that ended the stream (401, 403, 404). */
  status?: number;
  /** For `reconnecting`: delay before the next attempt. */
  retryInMs?: number;
  /** For `reconnecting`: how many attempts in a row have failed. */
  attempt?: number;
  /** For `open`: true when this is not the first connection (the caller may back-fill). */
  resumed?: boolean;
}

export interface SseMessage {
  /** The `id:` field, when the message had one. */
  id: string | undefined;
  /** The `event:` field, when the message had one. */
  event: string | undefined;
  /** `data`, parsed as JSON when it is JSON, else the string. */
  data: unknown;
}

export interface SseClientOptions {
  url: string;
  /** Extra headers, e.g. Authorization. A function is called on every (re)connect. */
  headers?: Record<string, string> | (() => Record<string, string>);
  /** Resume after this event id on the first connection too. */
  lastEventId?: string;
  fetch?: typeof globalThis.fetch;
  /** Reconnect when no byte has arrived for this long (default 45 s). */
  watchdogMs?: number;
  backoff?: BackoffOptions;
  onMessage: (message: SseMessage) => void;
  onState?: (info: SseStateInfo) => void;
}

export interface SseConnection {
  close(): void;
  readonly state: SseState;
  /** The id of the last message received (sent as Last-Event-ID on reconnect). */
  readonly lastEventId: string | undefined;
}

/** A connection that stayed up this long resets the backoff, even if it carried no event. */
const STABLE_CONNECTION_MS = 10_000;

export function connectSse(opts: SseClientOptions): SseConnection {
  const doFetch = opts.fetch ?? globalThis.fetch.bind(globalThis);
  const watchdogMs = opts.watchdogMs ?? 45_000;
  let state: SseState = "connecting";
  let closed = false;
  let lastEventId = opts.lastEventId;
  let attempt = 0;
  let serverRetryMs = 0;
  let connections = 0;
  let controller: AbortController | undefined;
  let sleepTimer: ReturnType<typeof setTimeout> | undefined;
  let wakeSleeper: (() => void) | undefined;

  const report = (info: SseStateInfo) => {
    state = info.state;
    try {
      opts.onState?.(info);
    } catch {
      // A listener's failure must not stop the stream.
    }
  };

  type Outcome = { retry: true; reason: string } | { retry: false };

  async function connectOnce(): Promise<Outcome> {
    controller = new AbortController();
    const signal = controller.signal;
    const headers: Record<string, string> = {
      Accept: "text/event-stream",
      "Cache-Control": "no-cache",
      ...(typeof opts.headers === "function" ? opts.headers() : opts.headers),
    };
    if (lastEventId) headers["Last-Event-ID"] = lastEventId;

    let res: Response;
    try {
      res = await doFetch(opts.url, { headers, signal });
    } catch (err) {
      return { retry: true, reason: `cannot reach ${originOf(opts.url)}: ${errorText(err)}` };
    }
    if (closed) {
      void res.body?.cancel().catch(() => undefined);
      return { retry: false };
    }
    if (res.status === 401 || res.status === 403 || res.status === 404) {
      const text = await res.text().catch(() => "");
      const serverMessage = messageFromBody(text);
      report({
        state: res.status === 404 ? "closed" : "unauthorized",
        status: res.status,
        message:
          res.status === 401
            ? `The server refused the API key${serverMessage ? ` (${serverMessage})` : ""}.`
            : res.status === 403
              ? `This key may not read that stream${serverMessage ? ` (${serverMessage})` : ""}.`
              : `No such stream: it may have been deleted${serverMessage ? ` (${serverMessage})` : ""}.`,
      });
      return { retry: false };
    }
    if (!res.ok || !res.body) {
      const text = await res.text().catch(() => "");
      return { retry: true, reason: `the server answered ${res.status}${bodySuffix(text)}` };
    }

    connections += 1;
    const openedAt = Date.now();
    report({ state: "open", resumed: connections > 1 });

    const parser = createParser({
      onEvent: (ev) => {
        if (ev.id) lastEventId = ev.id;
        attempt = 0;
        let data: unknown = ev.data;
        try {
          data = JSON.parse(ev.data);
        } catch {
          // Not JSON: hand over the string.
        }
        try {
          opts.onMessage({ id: ev.id || undefined, event: ev.event, data });
        } catch {
          // A consumer's failure must not stop the stream.
        }
      },
      onRetry: (ms) => {
        serverRetryMs = Math.min(ms, 60_000);
      },
    });

    let watchdog: ReturnType<typeof setTimeout> | undefined;
    let starved = false;
    const arm = () => {
      if (watchdog) clearTimeout(watchdog);
      watchdog = setTimeout(() => {
        starved = true;
        controller?.abort();
      }, watchdogMs);
    };

    const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
    arm();
    let reason = "the server closed the stream";
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        arm();
        parser.feed(value);
      }
    } catch (err) {
      reason = starved ? `no data for ${Math.round(watchdogMs / 1000)} s` : `the stream broke: ${errorText(err)}`;
    } finally {
      if (watchdog) clearTimeout(watchdog);
      reader.cancel().catch(() => undefined);
    }
    if (Date.now() - openedAt >= STABLE_CONNECTION_MS) attempt = 0;
    return closed ? { retry: false } : { retry: true, reason };
  }

  async function run() {
    report({ state: "connecting" });
    for (;;) {
      const outcome = await connectOnce();
      if (closed || !outcome.retry) return;
      const delay = Math.max(serverRetryMs, backoffDelay(attempt, opts.backoff));
      attempt += 1;
      report({ state: "reconnecting", message: outcome.reason, retryInMs: delay, attempt });
      await new Promise<void>((resolve) => {
        wakeSleeper = resolve;
        sleepTimer = setTimeout(resolve, delay);
      });
      wakeSleeper = undefined;
      if (closed) return;
    }
  }

  void run();

  return {
    close() {
      if (closed) return;
      closed = true;
      controller?.abort();
      if (sleepTimer) clearTimeout(sleepTimer);
      wakeSleeper?.();
      if (state !== "unauthorized" && state !== "closed") report({ state: "closed", message: "Stopped." });
    },
    get state() {
      return state;
    },
    get lastEventId() {
      return lastEventId;
    },
  };
}

function originOf(url: string): string {
  try {
    return new URL(url).origin;
  } catch {
    return url;
  }
}

function errorText(err: unknown): string {
  if (err instanceof Error) {
    const cause = (err as { cause?: unknown }).cause;
    return cause instanceof Error ? `${err.message} (${cause.message})` : err.message;
  }
  return String(err);
}

function messageFromBody(text: string): string | undefined {
  try {
    const body = JSON.parse(text) as { error?: unknown };
    return typeof body.error === "string" ? body.error : undefined;
  } catch {
    return undefined;
  }
}

function bodySuffix(text: string): string {
  const msg = messageFromBody(text) ?? text.slice(0, 200).trim();
  return msg ? `: ${msg}` : "";
}
