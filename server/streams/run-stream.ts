/**
 * One stream of a workflow's runs (`GET /workflows/{id}/runs/sse`, decisions.md "Workflow runs"):
 * each run's start, changes and end as a Run (as in lists), from RunChanges, with no backlog.
 *
 * A client that does not read costs a bounded amount of memory, as on the event streams
 * (event-stream.ts, same limits: SLOW_CLIENT): writes never wait; past `maxBufferedBytes` unsent
 * the stream stops writing and keeps, per run, only its latest version (a run's versions
 * coalesce: the newest says all). When the client drains, those are written; a client that has
 * not drained within `stallGraceMs`, or whose waiting versions pass `maxBufferedBytes` too, is
 * disconnected (it reconnects and reads the list for what it missed).
 */
import type { ServerResponse } from "node:http";
import type { RunRow } from "../store/repos/runs.js";
import type { RunChanges } from "../workflows/runs/changes.js";
import { runOfRow } from "../workflows/runs/record.js";
import { sseStreams } from "./event-stream.js";
import { SLOW_CLIENT, socketWriter } from "./socket-writer.js";

export interface RunStreamOptions {
  changes: Pick<RunChanges, "follow">;
  workflowId: string;
  /** Only this owner's runs are written (the route checked the workflow is theirs). */
  ownerId: string;
  heartbeatMs?: number;
  maxBufferedBytes?: number;
  stallGraceMs?: number;
}

/** Messages by row: a run's version is formatted once, however many streams write it. */
const formatted = new WeakMap<RunRow, string>();

function messageOf(row: RunRow): string {
  let text = formatted.get(row);
  if (text === undefined) {
    text = `id: ${row.id}\ndata: ${JSON.stringify(runOfRow(row, true))}\n\n`;
    formatted.set(row, text);
  }
  return text;
}

/** Streams `res` (headers already written) until either side closes. */
export function runRunStream(res: ServerResponse, o: RunStreamOptions): void {
  const maxBuffered = o.maxBufferedBytes ?? SLOW_CLIENT.maxBufferedBytes;
  const out = socketWriter(res);
  if (!out) {
    res.destroy();
    return;
  }
  /** Set while the client is over the limit: each run's latest message, not written yet. */
  let waiting: Map<string, string> | undefined;
  let waitingBytes = 0;
  let stallTimer: NodeJS.Timeout | undefined;
  let closed = false;

  sseStreams.inc();
  const close = () => {
    if (closed) return;
    closed = true;
    sseStreams.dec();
    unfollow();
    clearInterval(heartbeat);
    if (stallTimer) clearTimeout(stallTimer);
    waiting = undefined;
    if (!res.destroyed) res.destroy();
  };

  const write = (text: string) => {
    out.write(text);
    if (out.socket.writableLength > maxBuffered) stall();
  };

  const stall = () => {
    waiting = new Map();
    waitingBytes = 0;
    stallTimer = setTimeout(close, o.stallGraceMs ?? SLOW_CLIENT.stallGraceMs);
    stallTimer.unref();
    out.socket.once("drain", () => {
      if (closed || !waiting) return;
      clearTimeout(stallTimer);
      stallTimer = undefined;
      const texts = [...waiting.values()];
      waiting = undefined;
      if (texts.length > 0) write(texts.join(""));
    });
  };

  const unfollow = o.changes.follow(o.workflowId, (row) => {
    if (closed || row.owner_id !== o.ownerId) return;
    const text = messageOf(row);
    if (!waiting) return write(text);
    // A run's newer version takes its older one's place, at the end (the order they changed in).
    const older = waiting.get(row.id);
    if (older !== undefined) waiting.delete(row.id);
    waiting.set(row.id, text);
    waitingBytes += text.length - (older?.length ?? 0);
    if (waitingBytes > maxBuffered) close();
  });

  const heartbeat = setInterval(() => {
    if (!waiting && !closed) out.write(":\n\n");
  }, o.heartbeatMs ?? 15_000);
  heartbeat.unref();
  res.on("close", close);
  res.on("error", close);
}
