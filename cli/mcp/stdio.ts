/**
 * `headwater mcp`'s server: the shared tool set (shared/mcp) over stdio, on the CLI's connection.
 * The SDK's `serveStdio` picks the connection's protocol revision from its first message and
 * serves it; this file adds what needs the connection's lifetime:
 *
 * - 2025-11-25 `resources/subscribe`: one watch per events resource, for the connection;
 * - 2026-07-28 `subscriptions/listen`: the SDK's entry answers the listen request itself, so its
 *   inbound messages are looked at on their way in (a transport around stdio's) to start the
 *   watches of each listen and stop them at its `notifications/cancelled`.
 *
 * Each watch's news goes out as the instance's `notifications/resources/updated`, which the SDK
 * stamps onto the listens (2026-07-28) or sends as is (2025-11-25).
 */
import type { JSONRPCMessage, McpServer, Transport } from "@modelcontextprotocol/server";
import { serveStdio, StdioServerTransport } from "@modelcontextprotocol/server/stdio";
import type { Client } from "../../shared/client/index.js";
import {
  createHeadwaterMcp,
  emitterOfEventsUri,
  requireReadable,
  ResourceWatches,
  type LegacySubscriptions,
  type McpDeps,
} from "../../shared/mcp/index.js";
import { sendToEndpoint } from "./endpoint.js";

export interface StdioOptions {
  client: Client;
  apiKey: string;
  version: string;
  /** Where log lines go (stderr: stdout carries nothing but the protocol). */
  log: (line: string) => void;
  stdin?: NodeJS.ReadableStream;
  stdout?: NodeJS.WritableStream;
}

/** Serves until the client closes stdin (or `signal` aborts); resolves then. */
export async function serveMcpOverStdio(o: StdioOptions, signal: AbortSignal): Promise<void> {
  const deps: McpDeps = {
    client: o.client,
    apiKey: o.apiKey,
    // Streams need a streaming fetch: Node's own (loaded here only, not by short commands).
    streamFetch: globalThis.fetch.bind(globalThis),
    sendToEndpoint,
  };
  let current: McpServer | undefined;
  const notify = (uri: string) => {
    current?.server.sendResourceUpdated({ uri }).catch((err: unknown) => o.log(`notification failed: ${String(err)}`));
  };
  // 2025-11-25: the connection's subscriptions.
  const connectionWatches = new ResourceWatches(deps, notify);
  const legacySubscriptions: LegacySubscriptions = {
    subscribe: async (uri) => {
      const e = emitterOfEventsUri(uri)!;
      await requireReadable(deps.client, e);
      connectionWatches.watch(uri, e);
    },
    unsubscribe: async (uri) => connectionWatches.unwatch(uri),
  };
  // 2026-07-28: the watches of each open listen, by its request id.
  const listens = new Map<string | number, ResourceWatches>();
  const onInbound = (m: JSONRPCMessage) => {
    if ("method" in m && m.method === "subscriptions/listen" && "id" in m) {
      const watches = new ResourceWatches(deps, notify);
      for (const uri of requestedUris(m.params)) {
        const e = emitterOfEventsUri(uri);
        if (e) watches.watch(uri, e);
      }
      listens.get(m.id)?.closeAll();
      listens.set(m.id, watches);
    } else if ("method" in m && m.method === "notifications/cancelled") {
      const id = (m.params as { requestId?: string | number } | undefined)?.requestId;
      if (id !== undefined) {
        listens.get(id)?.closeAll();
        listens.delete(id);
      }
    }
  };

  const stdio = new StdioServerTransport(o.stdin as never, o.stdout as never);
  const closed = new Promise<void>((resolve) => {
    const transport = new InboundTap(stdio, onInbound, resolve);
    const handle = serveStdio(
      ({ era }) =>
        (current = createHeadwaterMcp(deps, { version: o.version, era, ...(era === "legacy" ? { legacySubscriptions } : {}) })),
      { transport, onerror: (err) => o.log(`mcp: ${err.message}`) },
    );
    signal.addEventListener("abort", () => void handle.close(), { once: true });
  });
  await closed;
  connectionWatches.closeAll();
  for (const w of listens.values()) w.closeAll();
}

function requestedUris(params: unknown): string[] {
  const subs = (params as { notifications?: { resourceSubscriptions?: unknown } } | undefined)?.notifications?.resourceSubscriptions;
  return Array.isArray(subs) ? subs.filter((u): u is string => typeof u === "string").slice(0, 100) : [];
}

/** A transport that shows each inbound message to `tap` before passing it on, and says when it closes. */
class InboundTap implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: Transport["onmessage"];

  constructor(
    private readonly inner: StdioServerTransport,
    private readonly tap: (m: JSONRPCMessage) => void,
    private readonly whenClosed: () => void,
  ) {}

  async start(): Promise<void> {
    this.inner.onmessage = (message) => {
      try {
        this.tap(message);
      } catch {
        // Watching is a side matter: the message is served whatever happened here.
      }
      this.onmessage?.(message);
    };
    this.inner.onerror = (err) => this.onerror?.(err);
    this.inner.onclose = () => {
      this.onclose?.();
      this.whenClosed();
    };
    await this.inner.start();
  }

  send(message: JSONRPCMessage): Promise<void> {
    return this.inner.send(message);
  }

  close(): Promise<void> {
    return this.inner.close();
  }
}
