/**
 * A small SSE reader for tests over node:http, so a test controls the socket (pause it to be a
 * slow client, destroy it to disconnect) and sees every message with its id.
 */
import http from "node:http";
import { createParser } from "eventsource-parser";

export interface SseMessageSeen {
  id: string | undefined;
  data: string;
}

export interface SseReader {
  status: number;
  messages: SseMessageSeen[];
  comments: string[];
  /** Resolves when the server ends the stream. */
  ended: Promise<void>;
  isEnded(): boolean;
  pause(): void;
  resume(): void;
  close(): void;
  /** Resolves once `n` messages arrived (rejects after `ms`). */
  waitFor(n: number, ms?: number): Promise<SseMessageSeen[]>;
}

export function openSse(url: string, headers: Record<string, string> = {}): Promise<SseReader> {
  return new Promise((resolve, reject) => {
    const req = http.get(url, { headers: { accept: "text/event-stream", ...headers } }, (res) => {
      const messages: SseMessageSeen[] = [];
      const comments: string[] = [];
      let ended = false;
      let waiters: Array<() => void> = [];
      const notify = () => {
        const w = waiters;
        waiters = [];
        for (const f of w) f();
      };
      const parser = createParser({
        onEvent: (e) => {
          messages.push({ id: e.id, data: e.data });
          notify();
        },
        onComment: (c) => comments.push(c),
      });
      res.setEncoding("utf8");
      res.on("data", (chunk: string) => parser.feed(chunk));
      const endedP = new Promise<void>((r) => {
        const done = () => {
          ended = true;
          notify();
          r();
        };
        res.on("end", done);
        res.on("close", done);
        res.on("error", done);
      });
      resolve({
        status: res.statusCode ?? 0,
        messages,
        comments,
        ended: endedP,
        isEnded: () => ended,
        pause: () => res.pause(),
        resume: () => res.resume(),
        close: () => req.destroy(),
        waitFor: (n, ms = 10_000) =>
          new Promise((ok, fail) => {
            const timer = setTimeout(() => fail(new Error(`only ${messages.length} of ${n} SSE messages after ${ms} ms`)), ms);
            const check = () => {
              if (messages.length >= n) {
                clearTimeout(timer);
                ok(messages.slice());
              } else if (ended) {
                clearTimeout(timer);
                fail(new Error(`stream ended after ${messages.length} of ${n} messages`));
              } else waiters.push(check);
            };
            check();
          }),
      });
    });
    req.on("error", reject);
  });
}
