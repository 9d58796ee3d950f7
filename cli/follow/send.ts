/**
 * Sending one forwarded request with node:http(s) rather than fetch: fetch refuses some header
 * names and adds its own (`accept`, `sec-fetch-*`), and a re-created webhook request must carry
 * the sender's headers as they were.
 */
import { nodeHttp, nodeHttps } from "../../shared/node-http.js";
import type { OutgoingRequest } from "./forward-request.js";

export type SendResult = { status: number; ms: number } | { error: string; ms: number };

export function send(req: OutgoingRequest, opts: { timeoutMs: number; signal: AbortSignal }): Promise<SendResult> {
  const started = performance.now();
  const ms = () => Math.round(performance.now() - started);
  return new Promise((resolve) => {
    const headers: Record<string, string> = { ...req.headers };
    if (req.body.length > 0 || !["GET", "HEAD", "DELETE", "OPTIONS"].includes(req.method)) {
      headers["content-length"] = String(req.body.length);
    }
    const lib = req.url.protocol === "https:" ? nodeHttps : nodeHttp;
    let settled = false;
    const done = (r: SendResult) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(r);
    };
    const outgoing = lib.request(req.url, { method: req.method, headers, signal: opts.signal, agent: false }, (res) => {
      // Only the status matters; read the body so the socket closes cleanly.
      res.resume();
      res.on("end", () => done({ status: res.statusCode ?? 0, ms: ms() }));
      res.on("error", () => done({ status: res.statusCode ?? 0, ms: ms() }));
    });
    const timer = setTimeout(() => {
      outgoing.destroy(new Error(`no answer within ${Math.round(opts.timeoutMs / 1000)} s`));
    }, opts.timeoutMs);
    outgoing.on("error", (err: NodeJS.ErrnoException) => done({ error: describe(err), ms: ms() }));
    outgoing.end(req.body.length > 0 ? req.body : undefined);
  });
}

function describe(err: NodeJS.ErrnoException): string {
  switch (err.code) {
    case "ECONNREFUSED":
      return "connection refused";
    case "ECONNRESET":
      return "connection reset";
    case "ENOTFOUND":
      return "host not found";
    case "EHOSTUNREACH":
    case "ENETUNREACH":
      return "host unreachable";
    case "ABORT_ERR":
      return "stopped";
    default:
      return err.message.split("\n")[0] ?? "request failed";
  }
}
