/**
 * The MCP tool set's view of this server: its typed client, SSE streams and endpoint requests all
 * go through Fastify's `app.inject`, so a tool call is the same REST call as any other (the same
 * routes, bearer auth, owner scoping, quotas and the per-key rate limit of /v1), minus the network
 * hop and the JSON the client would otherwise send over a socket.
 */
import { Readable } from "node:stream";
import type { FastifyInstance } from "fastify";
import { createClient, type FetchLike } from "../../shared/client/index.js";
import { VOUCH_HEADER } from "../http/auth.js";
import { HANDOVER_HEADER, takeHandedOver } from "../http/handover.js";
import type { EndpointAnswer, EndpointRequest, McpDeps } from "../../shared/mcp/index.js";
import { McpRefusal } from "../../shared/mcp/results.js";

/** The origin the in-process client pretends to talk to: only paths reach the app. */
export const INJECT_ORIGIN = "http://headwater.inject";

const pathOf = (url: URL | string) => {
  const u = typeof url === "string" ? new URL(url) : url;
  return `${u.pathname}${u.search}`;
};

/**
 * The typed client's `fetch`, answered by the app in-process; `vouch` goes with every request,
 * and a vouched request's answer comes back as the object (server/http/handover.ts).
 */
export function injectFetch(app: FastifyInstance, vouch: Record<string, string> = {}): FetchLike {
  return async (url, init) => {
    const res = await app.inject({
      method: init.method as "GET",
      url: pathOf(url),
      headers: { ...init.headers, ...vouch, [HANDOVER_HEADER]: "1" },
      ...(init.body !== undefined ? { payload: init.body } : {}),
    });
    const status = res.statusCode;
    const handed = takeHandedOver(res.raw.req);
    const text = async () => (handed ? JSON.stringify(handed.value) : res.body);
    return { ok: status >= 200 && status < 300, status, text, ...(handed ? { parsed: () => handed.value } : {}) };
  };
}

/**
 * A `fetch` for SSE routes: the answer's body streams as the route writes it (light-my-request's
 * `payloadAsStream`). Aborting the signal closes the route's response, which ends the stream
 * there (its bus subscription included), as a client disconnecting would.
 */
export function injectStreamFetch(app: FastifyInstance, vouch: Record<string, string> = {}): typeof globalThis.fetch {
  return (async (input: string | URL | Request, init?: RequestInit) => {
    const url = input instanceof Request ? input.url : input;
    const headers = { ...Object.fromEntries(new Headers(init?.headers).entries()), ...vouch };
    const res = await app.inject({ method: "GET", url: pathOf(url), headers, payloadAsStream: true });
    const stream = res.stream();
    const close = () => {
      res.raw.res.destroy();
      stream.destroy();
    };
    const signal = init?.signal;
    if (signal?.aborted) close();
    else signal?.addEventListener("abort", close, { once: true });
    stream.once("close", () => signal?.removeEventListener("abort", close));
    const responseHeaders = new Headers();
    for (const [k, v] of Object.entries(res.headers)) if (v !== undefined) responseHeaders.set(k, String(v));
    return new Response(Readable.toWeb(stream) as ReadableStream<Uint8Array>, { status: res.statusCode, headers: responseHeaders });
  }) as typeof globalThis.fetch;
}

/**
 * send_test_event's request: an endpoint URL this server handed out (under its public URL) is
 * answered in-process, as `/e/...`; any other URL is refused (the tool only tests this server's
 * endpoints).
 */
export function injectEndpoint(app: FastifyInstance, publicUrl: () => string) {
  return async (url: string, init: EndpointRequest): Promise<EndpointAnswer> => {
    const base = publicUrl().replace(/\/+$/, "");
    if (!url.startsWith(`${base}/e/`)) throw new McpRefusal("bad_request", "not an endpoint of this server");
    const res = await app.inject({
      method: init.method as "GET",
      url: url.slice(base.length),
      headers: init.headers,
      ...(init.body !== undefined ? { payload: init.body } : {}),
      signal: init.signal,
    });
    const headers: Record<string, string> = {};
    for (const [k, v] of Object.entries(res.headers)) if (v !== undefined) headers[k] = Array.isArray(v) ? v.join(", ") : String(v);
    return { status: res.statusCode, headers, body: res.body };
  };
}

/**
 * The deps of the tool set for one key: everything in-process. With `vouchToken` (auth.ts's
 * Vouches), its REST calls and streams carry it: they are the caller's, admitted just now.
 */
export function injectedDeps(app: FastifyInstance, apiKey: string, publicUrl: () => string, lifetime?: AbortSignal, vouchToken?: string): McpDeps {
  const vouch: Record<string, string> = vouchToken ? { [VOUCH_HEADER]: vouchToken } : {};
  return {
    ...(lifetime ? { lifetime } : {}),
    client: createClient({ baseUrl: `${INJECT_ORIGIN}/v1`, apiKey, fetch: injectFetch(app, vouch), validate: false, timeoutMs: 0 }),
    apiKey,
    streamFetch: injectStreamFetch(app, vouch),
    sendToEndpoint: injectEndpoint(app, publicUrl),
  };
}
