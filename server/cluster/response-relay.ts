/**
 * HTTP custom responses across instances. A request to `/e/:id` with customResponse waits on
 * the instance that received it, but its job may run on any instance (whichever claims the
 * target's lease). The running instance then sends `this.http.respond(...)` (or "ended without
 * responding") here; PostgreSQL LISTEN/NOTIFY carries it to every instance, and the one holding
 * the request answers it.
 *
 * A response can exceed NOTIFY's 8000-byte payload: it is sent as base64 parts of one
 * transaction, which PostgreSQL delivers together and in order.
 */
import { randomUUID } from "node:crypto";
import type pg from "pg";
import type { HttpResponse } from "../runtime/invoke.js";
import { PgSession } from "../store/pg-session.js";
import { RESPONSES_NOTIFY_CHANNEL, listenForResponses, notifyResponseParts } from "../store/repos/cluster.js";

/** Bytes of the message per notification (base64 grows it by a third: ~6.7 kB, under 8000). */
const PART_BYTES = 5000;
/** Parts of a message whose rest never came (lost connection) are dropped after this long. */
const PARTIAL_TTL_MS = 60_000;

export interface ResponseRelay {
  /** Hands a response, or undefined for "the run ended without one", to the waiting instance. */
  send(key: string, response: HttpResponse | undefined): void;
  /** Called with every response another instance sent (keys not waiting here are ignored). */
  onReceive(handler: (key: string, response: HttpResponse | undefined) => void): void;
  close(): Promise<void>;
}

interface Message {
  k: string;
  r?: HttpResponse;
}

export interface PgResponseRelayOptions {
  pool: pg.Pool;
  log: { warn(obj: unknown, msg: string): void };
}

export class PgResponseRelay implements ResponseRelay {
  private session: PgSession | undefined;
  private handler: ((key: string, response: HttpResponse | undefined) => void) | undefined;
  private readonly partial = new Map<string, { parts: string[]; got: number; at: number }>();

  private constructor(private readonly o: PgResponseRelayOptions) {}

  static async start(o: PgResponseRelayOptions): Promise<PgResponseRelay> {
    const relay = new PgResponseRelay(o);
    await relay.connect();
    return relay;
  }

  private async connect(): Promise<void> {
    this.session = await PgSession.open({
      pool: this.o.pool,
      label: "response relay",
      retryMs: 1000,
      setup: listenForResponses,
      onNotification: (msg) => {
        if (msg.channel === RESPONSES_NOTIFY_CHANNEL && msg.payload) this.onPart(msg.payload);
      },
      log: this.o.log,
    });
  }

  onReceive(handler: (key: string, response: HttpResponse | undefined) => void): void {
    this.handler = handler;
  }

  send(key: string, response: HttpResponse | undefined): void {
    const message: Message = response === undefined ? { k: key } : { k: key, r: response };
    const bytes = Buffer.from(JSON.stringify(message), "utf8");
    const id = randomUUID();
    const total = Math.max(1, Math.ceil(bytes.length / PART_BYTES));
    const parts: string[] = [];
    for (let i = 0; i < total; i++) {
      parts.push(
        `${id}:${i}:${total}:${bytes.subarray(i * PART_BYTES, (i + 1) * PART_BYTES).toString("base64")}`,
      );
    }
    void this.notify(parts).catch((err: unknown) =>
      this.o.log.warn({ err }, "relaying an HTTP response failed"),
    );
  }

  private async notify(parts: string[]): Promise<void> {
    const conn = await this.o.pool.connect();
    try {
      await notifyResponseParts(conn, parts);
    } finally {
      conn.release();
    }
  }

  private onPart(payload: string): void {
    const m = /^([0-9a-f-]{36}):(\d+):(\d+):(.*)$/s.exec(payload);
    if (!m) return;
    const [, id, indexText, totalText, data] = m as unknown as [string, string, string, string, string];
    const index = Number(indexText);
    const total = Number(totalText);
    if (!(index < total) || total > 10_000) return;
    const now = Date.now();
    for (const [k, p] of this.partial) if (now - p.at > PARTIAL_TTL_MS) this.partial.delete(k);
    let entry = this.partial.get(id);
    if (!entry) this.partial.set(id, (entry = { parts: new Array<string>(total), got: 0, at: now }));
    if (entry.parts[index] === undefined) entry.got++;
    entry.parts[index] = data;
    if (entry.got < total) return;
    this.partial.delete(id);
    let message: Message;
    try {
      message = JSON.parse(
        Buffer.concat(entry.parts.map((p) => Buffer.from(p, "base64"))).toString("utf8"),
      ) as Message;
    } catch {
      return;
    }
    if (typeof message.k === "string") this.handler?.(message.k, message.r);
  }

  async close(): Promise<void> {
    await this.session?.close();
  }
}
