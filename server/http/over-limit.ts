/**
 * A body over the limit gets a 413 the client can read (issue 19). Answering and closing while
 * the client is still sending makes its next write fail (EPIPE / ECONNRESET): Node's fetch, curl
 * and browsers then report that instead of the answer. So, as mature servers do, the rest of
 * the body is read and thrown away after the 413 is sent, up to DRAIN_MAX_BYTES and
 * DRAIN_MAX_MS; only a client that sends more than that, or too slowly, is cut off. Once the
 * body has ended the connection is an ordinary keep-alive one again (its framing is intact).
 *
 * Fastify refuses the body (FST_ERR_CTP_BODY_TOO_LARGE, from Content-Length or while reading)
 * and marks the answer `Connection: close`, which makes Node destroy the socket as soon as the
 * answer is written, under the client's upload; this hook takes that closing over.
 */
import type { FastifyInstance } from "fastify";

/** Most bytes read and discarded after a 413. */
export const DRAIN_MAX_BYTES = 256 * 1024 * 1024;
/** Longest time given to the client to finish sending after a 413. */
export const DRAIN_MAX_MS = 30_000;

export function registerOverLimitDrain(app: FastifyInstance): void {
  app.addHook("onSend", async (request, reply, payload) => {
    if (reply.statusCode !== 413) return payload;
    const req = request.raw;
    if (req.complete) return payload;
    const socket = req.socket;
    // Not `Connection: close`: Node would destroy the socket as soon as the answer is written.
    reply.removeHeader("connection");
    let read = 0;
    const stop = () => {
      clearTimeout(timer);
      req.removeListener("data", count);
    };
    const count = (chunk: Buffer) => {
      read += chunk.length;
      if (read > DRAIN_MAX_BYTES) {
        stop();
        socket.destroy();
      }
    };
    const timer = setTimeout(() => {
      stop();
      socket.destroy();
    }, DRAIN_MAX_MS);
    timer.unref();
    req.on("data", count);
    req.once("end", stop);
    req.once("close", stop);
    req.resume();
    return payload;
  });
}
