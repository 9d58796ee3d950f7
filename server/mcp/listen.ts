/**
 * `subscriptions/listen` (protocol revision 2026-07-28): the SDK's entry serves the stream (the
 * acknowledgement, the filter, the subscription ids, the teardown); this file gives each such
 * stream a change-event bus of its own, fed by watches of the events resources it asked for,
 * with the key of the user who asked. So a stream only ever hears of what its own user may read
 * (another user's source is a 404 to the watch, which then says nothing), and a watch lives
 * exactly as long as its stream.
 */
import { createMcpHandler, type McpServerFactory, type ServerEvent, type ServerEventBus } from "@modelcontextprotocol/server";
import type { AuthInfo } from "@modelcontextprotocol/server";
import type { McpDeps } from "../../shared/mcp/index.js";
import { emitterOfEventsUri, ResourceWatches } from "../../shared/mcp/index.js";

/** The events resources a listen request asks about (unknown URIs are ignored: never notified). */
function requestedUris(body: unknown): string[] {
  const subs = (body as { params?: { notifications?: { resourceSubscriptions?: unknown } } })?.params?.notifications
    ?.resourceSubscriptions;
  return Array.isArray(subs) ? subs.filter((u): u is string => typeof u === "string").slice(0, 100) : [];
}

export class ListenStreams {
  private readonly open = new Set<{ close(): Promise<void> }>();

  constructor(
    private readonly factory: McpServerFactory,
    private readonly onerror: (err: Error) => void,
  ) {}

  /** Serves one listen request; its watches start with the stream and stop when it ends. */
  serve(request: Request, body: unknown, authInfo: AuthInfo, deps: McpDeps): Promise<Response> {
    const listeners = new Set<(e: ServerEvent) => void>();
    const watches = new ResourceWatches(deps, (uri) => bus.publish({ kind: "resource_updated", uri }));
    const bus: ServerEventBus = {
      publish: (event) => {
        for (const l of listeners) l(event);
      },
      subscribe: (listener) => {
        listeners.add(listener);
        for (const uri of requestedUris(body)) {
          const e = emitterOfEventsUri(uri);
          if (e) watches.watch(uri, e);
        }
        return () => {
          listeners.delete(listener);
          watches.closeAll();
          this.open.delete(handler);
        };
      },
    };
    const handler = createMcpHandler(this.factory, { legacy: "reject", bus, onerror: this.onerror, maxSubscriptions: 1 });
    this.open.add(handler);
    return handler.fetch(request, { authInfo, parsedBody: body }).then((res) => {
      // A refused listen (bad params, no stream) never subscribed: nothing to keep.
      if (listeners.size === 0) this.open.delete(handler);
      return res;
    });
  }

  /** Ends every stream gracefully (the server stops). */
  async close(): Promise<void> {
    const all = [...this.open];
    this.open.clear();
    await Promise.all(all.map((h) => h.close().catch(() => undefined)));
  }
}
