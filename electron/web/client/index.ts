/**
 * `HeadwaterBridge` for a browser talking to the web host (web mode). Calls are
 * `POST /__headwater/call/<method>` with the per-launch token; pushed events (stream batches and
 * states, profile changes) come over one SSE stream from `/__headwater/events`. The token is read
 * once from the page URL (`?token=`), kept in sessionStorage and removed from the address bar.
 *
 * Bundled by the web host into `/__headwater/bridge.js`, which defines `window.headwater` before
 * the renderer starts.
 */
import { BRIDGE_METHOD_NAMES as BRIDGE_METHODS, PUSH_CHANNELS } from "../../../shared/bridge-names.js";
import type {
  BridgeResult,
  HeadwaterBridge,
  Profile,
  RunBatch,
  StreamBatch,
  StreamStateUpdate,
} from "../../../shared/bridge.js";
import { connectSse } from "../../../shared/sse/client.js";

export const WEB_API_PREFIX = "/__headwater";
export const SESSION_HEADER = "X-Headwater-Session";

export interface WebBridgeOptions {
  /** Origin of the web host (default: the page's). */
  origin?: string;
  token: string;
  fetch?: typeof globalThis.fetch;
}

type Listener<T> = (value: T) => void;

export function createWebBridge(opts: WebBridgeOptions): HeadwaterBridge {
  const origin = opts.origin ?? globalThis.location.origin;
  const doFetch = opts.fetch ?? globalThis.fetch.bind(globalThis);
  // One id per page: the host closes this page's live feeds when its event stream goes away.
  const session = globalThis.crypto.randomUUID();
  const headers = { Authorization: `Bearer ${opts.token}`, [SESSION_HEADER]: session };

  const batchListeners = new Set<Listener<StreamBatch>>();
  const runBatchListeners = new Set<Listener<RunBatch>>();
  const stateListeners = new Set<Listener<StreamStateUpdate>>();
  const profileListeners = new Set<Listener<Profile[]>>();
  let events: { close(): void } | undefined;

  const ensureEvents = () => {
    events ??= connectSse({
      url: `${origin}${WEB_API_PREFIX}/events`,
      headers,
      fetch: doFetch,
      backoff: { initialMs: 250, maxMs: 5000 },
      onMessage: (m) => {
        if (m.event === PUSH_CHANNELS.streamBatch) for (const l of batchListeners) l(m.data as StreamBatch);
        else if (m.event === PUSH_CHANNELS.runBatch) for (const l of runBatchListeners) l(m.data as RunBatch);
        else if (m.event === PUSH_CHANNELS.streamState) for (const l of stateListeners) l(m.data as StreamStateUpdate);
        else if (m.event === PUSH_CHANNELS.profilesChanged) for (const l of profileListeners) l(m.data as Profile[]);
      },
    });
  };

  async function call(method: string, args: unknown[]): Promise<BridgeResult<unknown>> {
    // Register the push stream before any watch, so no batch is sent before we listen.
    if (method === "watch" || method === "watchRuns") ensureEvents();
    try {
      const res = await doFetch(`${origin}${WEB_API_PREFIX}/call/${method}`, {
        method: "POST",
        headers: { ...headers, "Content-Type": "application/json" },
        body: JSON.stringify({ args }),
      });
      const body = (await res.json().catch(() => undefined)) as BridgeResult<unknown> | undefined;
      if (body && typeof body === "object" && "ok" in body) return body;
      return { ok: false, error: { status: res.status, code: "host_error", message: `The dashboard host answered ${res.status}.` } };
    } catch (err) {
      return {
        ok: false,
        error: {
          status: 0,
          code: "host_unreachable",
          message: `The dashboard host is not reachable (${err instanceof Error ? err.message : String(err)}). Is \`npm run web\` still running?`,
        },
      };
    }
  }

  const subscribe = <T>(set: Set<Listener<T>>, cb: Listener<T>) => {
    ensureEvents();
    set.add(cb);
    return () => void set.delete(cb);
  };

  const bridge: Record<string, unknown> = {
    onStreamBatch: (cb: Listener<StreamBatch>) => subscribe(batchListeners, cb),
    onRunBatch: (cb: Listener<RunBatch>) => subscribe(runBatchListeners, cb),
    onStreamState: (cb: Listener<StreamStateUpdate>) => subscribe(stateListeners, cb),
    onProfilesChanged: (cb: Listener<Profile[]>) => subscribe(profileListeners, cb),
  };
  for (const method of BRIDGE_METHODS) bridge[method] = (...args: unknown[]) => call(method, args);
  return Object.freeze(bridge) as unknown as HeadwaterBridge;
}

/** The token of this page: from `?token=` (then hidden from the address bar) or this tab's storage. */
export function pageToken(): string | undefined {
  const url = new URL(globalThis.location.href);
  const fromUrl = url.searchParams.get("token");
  if (fromUrl) {
    globalThis.sessionStorage.setItem("headwater-token", fromUrl);
    url.searchParams.delete("token");
    globalThis.history.replaceState(globalThis.history.state, "", url.pathname + url.search + url.hash);
    return fromUrl;
  }
  return globalThis.sessionStorage.getItem("headwater-token") ?? undefined;
}
