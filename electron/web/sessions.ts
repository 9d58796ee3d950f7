/**
 * Browser pages of the web host. Each page has a session (an id it makes up at load): the push
 * messages meant for it (its watches' batches and states, profile changes) are numbered and kept
 * in a bounded buffer, so a page whose event stream drops and comes back with Last-Event-ID loses
 * nothing. A page gone for `idleMs` has its watches closed.
 */
import type http from "node:http";

export interface PushMessage {
  seq: number;
  event: string;
  data: string;
}

export class Session {
  readonly watchIds = new Set<string>();
  private readonly buffer: PushMessage[] = [];
  private nextSeq = 1;
  private client: http.ServerResponse | undefined;
  private idleTimer: ReturnType<typeof setTimeout> | undefined;

  constructor(
    readonly id: string,
    private readonly maxBuffered: number,
    private readonly idleMs: number,
    private readonly onIdle: (s: Session) => void,
  ) {
    this.armIdle();
  }

  push(event: string, data: unknown): void {
    const msg = { seq: this.nextSeq++, event, data: JSON.stringify(data) };
    this.buffer.push(msg);
    if (this.buffer.length > this.maxBuffered) this.buffer.splice(0, this.buffer.length - this.maxBuffered);
    if (this.client) write(this.client, msg);
  }

  /** Attaches a page's event stream, replaying what it has not seen. */
  attach(res: http.ServerResponse, lastSeq: number): void {
    this.client?.end();
    this.client = res;
    if (this.idleTimer) clearTimeout(this.idleTimer);
    this.idleTimer = undefined;
    for (const msg of this.buffer) if (msg.seq > lastSeq) write(res, msg);
    res.on("close", () => {
      if (this.client === res) {
        this.client = undefined;
        this.armIdle();
      }
    });
  }

  /** How many messages are kept for replay. */
  get buffered(): number {
    return this.buffer.length;
  }

  close(): void {
    if (this.idleTimer) clearTimeout(this.idleTimer);
    this.client?.end();
    this.client = undefined;
  }

  private armIdle() {
    if (this.idleTimer) clearTimeout(this.idleTimer);
    this.idleTimer = setTimeout(() => this.onIdle(this), this.idleMs);
    this.idleTimer.unref?.();
  }
}

function write(res: http.ServerResponse, msg: PushMessage) {
  res.write(`id: ${msg.seq}\nevent: ${msg.event}\ndata: ${msg.data}\n\n`);
}
