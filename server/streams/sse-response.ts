/**
 * Starting a server-sent-events answer: the route takes the reply over from Fastify, writes the
 * stream's headers and the handshake comment, and the stream is closed when the server stops.
 * Every SSE endpoint (events, runs) starts its answer here.
 */
import type { ServerResponse } from "node:http";
import type { FastifyInstance, FastifyReply } from "fastify";
import { HANDSHAKE } from "./event-stream.js";

/** The open streams of a route plugin, destroyed when the server closes (open streams never end by themselves). */
export function openStreams(app: FastifyInstance): Set<ServerResponse> {
  const open = new Set<ServerResponse>();
  app.addHook("preClose", async () => {
    for (const res of open) res.destroy();
  });
  return open;
}

/** Takes the reply over and starts the stream; `onClose` runs once when the client goes. */
export function startSse(reply: FastifyReply, open: Set<ServerResponse>): ServerResponse {
  reply.hijack();
  const res = reply.raw;
  res.writeHead(200, {
    "content-type": "text/event-stream; charset=utf-8",
    "cache-control": "no-cache, no-transform",
    connection: "keep-alive",
    "x-accel-buffering": "no",
  });
  // (optional call: a request made in-process by `app.inject`, as MCP's tools do, has no TCP socket)
  res.socket?.setNoDelay?.(true);
  res.write(HANDSHAKE);
  open.add(res);
  res.on("close", () => open.delete(res));
  return res;
}
