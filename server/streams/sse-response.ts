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

/**
 * Takes the reply over and starts the stream. Resolves once the headers and the handshake have
 * reached the socket: streams then write to the socket itself (event-stream.ts), and a write
 * there must never overtake the headers, which Node 24.22 may still hold in the response.
 */
export async function startSse(reply: FastifyReply, open: Set<ServerResponse>): Promise<ServerResponse> {
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
  open.add(res);
  res.on("close", () => open.delete(res));
  await new Promise<void>((resolve) => {
    res.write(HANDSHAKE, () => resolve());
    // A client gone before the handshake was written: nothing waits for the write any more.
    res.once("close", () => resolve());
  });
  return res;
}
