/**
 * Where an SSE stream writes (event-stream.ts, run-stream.ts): straight to the response's
 * socket, already framed as an HTTP chunk, so a batch of messages is one socket write. Writes
 * never wait: a stream watches `writableLength` (what the client has not taken yet) and bounds
 * it itself, so that a client that does not read costs the server a bounded amount of memory.
 */
import type { ServerResponse } from "node:http";

/** What a stream watches of where it writes: how much waits, and when that drains. */
export interface Drainable {
  readonly writableLength: number;
  once(event: "drain", listener: () => void): unknown;
}

export interface SocketWriter {
  socket: Drainable;
  write(text: string): void;
}

/**
 * Writes SSE text to a response whose headers were sent, straight to its socket. A chunked
 * response (HTTP/1.1) gets each write as one chunk, so that `res.end()` still ends it properly.
 * Undefined when there is nowhere to write (the client is gone).
 */
export function socketWriter(res: ServerResponse): SocketWriter | undefined {
  const socket = res.socket;
  if (!socket || !res.headersSent) return undefined;
  // A request made in-process (Fastify's `inject`, as MCP's tools make theirs) has no socket to
  // write to: its response is the stream its caller reads.
  if ((res as { isLightMyRequest?: boolean }).isLightMyRequest) return { socket: res, write: (text) => void res.write(text) };
  const chunked = (res as unknown as { chunkedEncoding?: boolean }).chunkedEncoding === true;
  return {
    socket,
    write: (text) => {
      socket.write(chunked ? `${Buffer.byteLength(text).toString(16)}\r\n${text}\r\n` : text);
    },
  };
}

/**
 * How a stream bounds a slow client: past `maxBufferedBytes` unsent it stops writing; a client
 * that has not drained within `stallGraceMs` is disconnected.
 */
export const SLOW_CLIENT = { maxBufferedBytes: 1024 * 1024, stallGraceMs: 5000 } as const;
