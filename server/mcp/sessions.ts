/**
 * Sessions of protocol revision 2025-11-25 clients, for the one thing that revision ties to a
 * session: resource subscriptions (`resources/subscribe`) and the GET stream that carries their
 * `notifications/resources/updated`. Everything else such a client sends is served statelessly,
 * with or without its `Mcp-Session-Id`, by any instance; only a subscription needs the instance
 * that issued the session (an unknown one is a 404, so the client initializes again).
 *
 * A session lives in this process: it holds the user's watches (one SSE stream per subscribed
 * events resource) and at most one GET stream. It ends with DELETE, when its user goes, or after
 * an hour with neither a request nor an open stream.
 */
import crypto from "node:crypto";
import type { ServerResponse } from "node:http";
import type { LegacySubscriptions, McpDeps } from "../../shared/mcp/index.js";
import { emitterOfEventsUri, requireReadable, ResourceWatches } from "../../shared/mcp/index.js";
import { McpRefusal } from "../../shared/mcp/results.js";

/** Idle sessions (no request, no stream) are forgotten after this long. */
const IDLE_MS = 60 * 60 * 1000;
/** Sessions one user may hold at once (the oldest goes first). */
const PER_USER = 64;
/** Subscriptions one session may hold. */
const SUBSCRIPTIONS = 100;
/** Ended sessions remembered (a request naming one is a 404: the transport's rule), and how long. */
const ENDED_KEPT = 10_000;
const ENDED_MS = 24 * 60 * 60 * 1000;

interface Session {
  id: string;
  userId: string;
  deps: McpDeps;
  watches: ResourceWatches;
  stream: ServerResponse | undefined;
  seenAt: number;
}

export class LegacySessions {
  private readonly sessions = new Map<string, Session>();
  private readonly ended = new Map<string, number>();
  private readonly sweeper: ReturnType<typeof setInterval>;

  constructor(private readonly now: () => number = Date.now) {
    this.sweeper = setInterval(() => this.sweep(), 60_000);
    this.sweeper.unref();
  }

  /** A new session for `userId`; `deps` are the user's (the watches follow streams with them). */
  create(userId: string, deps: McpDeps): string {
    const mine = [...this.sessions.values()].filter((s) => s.userId === userId);
    if (mine.length >= PER_USER) this.end(mine[0]!.id);
    const id = crypto.randomBytes(24).toString("base64url");
    const session: Session = {
      id,
      userId,
      deps,
      watches: new ResourceWatches(deps, (uri) => this.send(session, uri)),
      stream: undefined,
      seenAt: this.now(),
    };
    this.sessions.set(id, session);
    return id;
  }

  /** The session `id` of `userId` (another user's is as unknown as a missing one). */
  find(id: string | undefined, userId: string): Session | undefined {
    const s = id === undefined ? undefined : this.sessions.get(id);
    if (!s || s.userId !== userId) return undefined;
    s.seenAt = this.now();
    return s;
  }

  /** The subscriptions of the request's session, for the tool set's `resources/subscribe`. */
  subscriptionsFor(sessionId: string | undefined, userId: string): LegacySubscriptions {
    const session = () => {
      const s = this.find(sessionId, userId);
      if (!s) {
        throw new McpRefusal(
          "no_session",
          "resources/subscribe needs the Mcp-Session-Id this server's initialize answer gave (send initialize again)",
        );
      }
      return s;
    };
    return {
      subscribe: async (uri) => {
        const s = session();
        const e = emitterOfEventsUri(uri)!;
        if (!s.watches.has(uri) && s.watches.size >= SUBSCRIPTIONS) {
          throw new McpRefusal("too_many_subscriptions", `a session may hold ${SUBSCRIPTIONS} subscriptions`);
        }
        await requireReadable(s.deps.client, e);
        s.watches.watch(uri, e);
      },
      unsubscribe: async (uri) => {
        session().watches.unwatch(uri);
      },
    };
  }

  /**
   * Makes `res` (headers not written yet) the session's GET stream: notifications go there until
   * it closes. A second GET replaces the first (a client that reconnects).
   */
  attachStream(s: Session, res: ServerResponse): void {
    s.stream?.end();
    s.stream = res;
    res.writeHead(200, {
      "content-type": "text/event-stream",
      "cache-control": "no-cache, no-transform",
      connection: "keep-alive",
      "x-accel-buffering": "no",
    });
    res.write(": stream of notifications/resources/updated\n\n");
    const heartbeat = setInterval(() => res.write(": keepalive\n\n"), 15_000);
    res.once("close", () => {
      clearInterval(heartbeat);
      if (s.stream === res) s.stream = undefined;
      s.seenAt = this.now();
    });
  }

  /** Whether `id` named a session of this instance that has ended (DELETE, idle, its user's limit). */
  hasEnded(id: string): boolean {
    return this.ended.has(id);
  }

  end(id: string): boolean {
    const s = this.sessions.get(id);
    if (!s) return false;
    this.sessions.delete(id);
    this.ended.set(id, this.now());
    if (this.ended.size > ENDED_KEPT) this.ended.delete(this.ended.keys().next().value!);
    s.watches.closeAll();
    s.stream?.end();
    return true;
  }

  /** Ends every session (the server stops). */
  close(): void {
    clearInterval(this.sweeper);
    for (const id of [...this.sessions.keys()]) this.end(id);
  }

  get size(): number {
    return this.sessions.size;
  }

  private send(s: Session, uri: string): void {
    const message = { jsonrpc: "2.0", method: "notifications/resources/updated", params: { uri } };
    s.stream?.write(`event: message\ndata: ${JSON.stringify(message)}\n\n`);
  }

  private sweep(): void {
    const cutoff = this.now() - IDLE_MS;
    for (const s of [...this.sessions.values()]) if (!s.stream && s.seenAt < cutoff) this.end(s.id);
    const forgotten = this.now() - ENDED_MS;
    for (const [id, at] of this.ended) if (at < forgotten) this.ended.delete(id);
  }
}
