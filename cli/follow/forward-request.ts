/**
 * What `listen --forward-to` sends for one event. An HTTP request event (what an HTTP source
 * emits: `{method, path, query, headers, bodyRaw, body}`) is re-created against the target, so
 * the app on the laptop sees the request the webhook sender made: same method, the target URL
 * plus the event's path and query, the original headers (signatures included) except the ones
 * that belong to one connection, and the raw body byte for byte. Any other event is POSTed as
 * its JSON, with headers naming the event and the source.
 */
import { nodeHttp } from "../../shared/node-http.js";
import type { EventSummary } from "../../shared/resources/index.js";

export interface OutgoingRequest {
  method: string;
  url: URL;
  headers: Record<string, string>;
  body: Buffer;
}

/**
 * Not forwarded: the hop-by-hop headers of RFC 9110 §7.6.1 (plus the obsolete
 * `proxy-connection`), `host` and `content-length` (they describe the original connection and
 * body, and are set anew), and `expect` (the body goes out at once; no 100-continue wait).
 */
const DROPPED = new Set([
  "connection",
  "keep-alive",
  "proxy-authenticate",
  "proxy-authorization",
  "proxy-connection",
  "te",
  "trailer",
  "trailers",
  "transfer-encoding",
  "upgrade",
  "host",
  "content-length",
  "expect",
]);

export interface HttpRequestEvent {
  method: string;
  path: string;
  query?: Record<string, unknown>;
  headers?: Record<string, unknown>;
  bodyRaw?: unknown;
  body?: unknown;
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

/** Whether an event's data is an HTTP request as an HTTP source emits it. */
export function isHttpRequestEvent(data: unknown): data is HttpRequestEvent {
  if (!isRecord(data)) return false;
  if (typeof data.method !== "string" || !/^[A-Za-z]{1,20}$/.test(data.method)) return false;
  if (typeof data.path !== "string" || !data.path.startsWith("/")) return false;
  if (data.headers !== undefined && !isRecord(data.headers)) return false;
  if (data.query !== undefined && !isRecord(data.query)) return false;
  return "bodyRaw" in data || "body" in data;
}

/**
 * Parses `--forward-to`: an http(s) URL; a bare `localhost:3000/hooks` means http, as in other
 * relay clients. Undefined when it is not a usable URL.
 */
export function parseTarget(value: string): URL | undefined {
  const withScheme = /^[a-z][a-z0-9+.-]*:\/\//i.test(value) ? value : `http://${value}`;
  try {
    const url = new URL(withScheme);
    if (url.protocol !== "http:" && url.protocol !== "https:") return undefined;
    if (url.hash) return undefined;
    return url;
  } catch {
    return undefined;
  }
}

export function requestFor(e: EventSummary, target: URL, sourceId: string): OutgoingRequest {
  if (isHttpRequestEvent(e.event)) return recreate(e.event, target);
  return {
    method: "POST",
    url: new URL(target),
    headers: {
      "content-type": "application/json",
      "x-headwater-event-id": e.id,
      "x-headwater-source-id": sourceId,
    },
    body: Buffer.from(JSON.stringify(e.event ?? null), "utf8"),
  };
}

function recreate(ev: HttpRequestEvent, target: URL): OutgoingRequest {
  const url = new URL(target);
  // The target's path plus the event's: /hooks + /stripe = /hooks/stripe. A request to the
  // endpoint itself (path "/") goes to the target URL as given, with no slash added.
  if (ev.path !== "/") url.pathname = url.pathname.replace(/\/+$/, "") + ev.path;
  for (const [k, v] of Object.entries(ev.query ?? {})) {
    for (const one of Array.isArray(v) ? v : [v]) if (one !== undefined && one !== null) url.searchParams.append(k, String(one));
  }

  const original = ev.headers ?? {};
  // Headers the original `Connection` header named are hop-by-hop too.
  const named = new Set(
    String(original.connection ?? original.Connection ?? "")
      .split(",")
      .map((s) => s.trim().toLowerCase())
      .filter(Boolean),
  );
  const headers: Record<string, string> = {};
  for (const [rawName, raw] of Object.entries(original)) {
    const name = rawName.toLowerCase();
    if (DROPPED.has(name) || named.has(name) || raw === undefined || raw === null) continue;
    const value = Array.isArray(raw) ? raw.map(String).join(", ") : String(raw);
    // A header Node would refuse to send (bad name, a newline in the value) is left out rather
    // than failing the whole request.
    try {
      nodeHttp.validateHeaderName(name);
      nodeHttp.validateHeaderValue(name, value);
    } catch {
      continue;
    }
    headers[name] = value;
  }
  return { method: ev.method.toUpperCase(), url, headers, body: rawBody(ev) };
}

/** The raw body: `bodyRaw` when the event has it, else the parsed body turned back into text. */
function rawBody(ev: HttpRequestEvent): Buffer {
  if (typeof ev.bodyRaw === "string") return Buffer.from(ev.bodyRaw, "utf8");
  if (ev.body === undefined || ev.body === null || ev.body === "") return Buffer.alloc(0);
  return Buffer.from(typeof ev.body === "string" ? ev.body : JSON.stringify(ev.body), "utf8");
}
