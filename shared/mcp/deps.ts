/**
 * What the MCP tool set needs from where it runs, and nothing more: the typed client of the
 * key's user (every tool is one or a few REST calls through it), a `fetch` for the SSE streams
 * that wait_for_events and resource subscriptions follow, and a way to send a request to an
 * endpoint URL (send_test_event). The API server gives it a client over `app.inject` (same
 * routes, auth, quotas and rate limit, no network hop); `headwater mcp` the CLI's connection.
 */
import type { Client } from "../client/index.js";

/** The answer of an endpoint to send_test_event. */
export interface EndpointAnswer {
  status: number;
  headers: Record<string, string>;
  body: string;
}

export interface EndpointRequest {
  method: string;
  headers: Record<string, string>;
  body: string | undefined;
  signal: AbortSignal;
}

export interface McpDeps {
  /** The typed client, acting as the key's user. */
  client: Client;
  /** The key, for the SSE streams' Authorization header (never shown to the model). */
  apiKey: string;
  /** `fetch` for SSE streams: it must stream the body. */
  streamFetch: typeof globalThis.fetch;
  /** Sends one request to an endpoint URL the server handed out (`/e/...`). */
  sendToEndpoint: (url: string, init: EndpointRequest) => Promise<EndpointAnswer>;
  /** Aborted when whatever serves the tools stops: waits end then (not at their timeout). */
  lifetime?: AbortSignal;
}

/**
 * Where `resources/subscribe` (protocol revision 2025-11-25) keeps its subscriptions: the
 * connection on stdio, the `Mcp-Session-Id` session over HTTP. Absent: the era's subscriptions
 * are served elsewhere (2026-07-28's `subscriptions/listen` is the serving entry's).
 */
export interface LegacySubscriptions {
  /** Starts sending `notifications/resources/updated` for `uri`; throws an McpRefusal when it cannot. */
  subscribe(uri: string): Promise<void>;
  unsubscribe(uri: string): Promise<void>;
}
