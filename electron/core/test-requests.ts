/**
 * "Send test event": the host sends a request to an HTTP source's or workflow's own endpoint
 * (the URL the server gave it, never one the page names), reads the response, and keeps the
 * request among the emitter's last few in the settings store so it can be sent again. A kept
 * request never holds a header whose name looks like a credential (shared/secrets.ts).
 */
import {
  TEST_REQUESTS_KEPT,
  type SavedTestRequest,
  type TestRequestInput,
  type TestResponse,
} from "../../shared/bridge.js";
import type { Client } from "../../shared/client/index.js";
import { isSecretName } from "../../shared/secrets.js";
import { HostError } from "./errors.js";
import type { SettingsStore } from "./settings.js";

/** Set by fetch itself or meaningless for a one-off request: dropped rather than sent. */
const HOP_HEADERS = new Set([
  "host",
  "content-length",
  "connection",
  "keep-alive",
  "transfer-encoding",
  "upgrade",
  "te",
  "trailer",
  "expect",
]);
const RESPONSE_BODY_MAX = 64 * 1024;
const TIMEOUT_MS = 15_000;
/** Emitters whose requests are kept; the least recently used beyond this are forgotten. */
const EMITTERS_KEPT = 200;

/** The endpoint an emitter receives requests on: a workflow's, or a source's first HTTP prop's. */
export async function endpointOf(client: Client, emitterId: string): Promise<string> {
  if (emitterId.startsWith("p_")) {
    const w = await client.getWorkflow(emitterId);
    if (w.endpoint_url) return w.endpoint_url;
    throw new HostError(400, "no_endpoint", "This workflow has no HTTP endpoint.");
  }
  const s = await client.getSource(emitterId);
  for (const v of Object.values(s.configured_props ?? {})) {
    const url = v && typeof v === "object" ? (v as { endpoint_url?: unknown }).endpoint_url : undefined;
    if (typeof url === "string" && /^https?:\/\//.test(url)) return url;
  }
  throw new HostError(
    400,
    "no_endpoint",
    "This source has no HTTP endpoint: only HTTP sources take test events.",
  );
}

/** What is kept of a request: everything but secret-looking headers. */
export function keptCopy(req: TestRequestInput, sentAt: number): SavedTestRequest {
  return { ...req, headers: req.headers.filter((h) => !isSecretName(h.name)), sentAt };
}

export class TestRequests {
  constructor(
    private readonly settings: SettingsStore,
    private readonly fetchImpl: typeof globalThis.fetch = globalThis.fetch,
  ) {}

  list(profileId: string, emitterId: string): SavedTestRequest[] {
    return this.settings.read().testRequests[`${profileId}:${emitterId}`] ?? [];
  }

  async send(
    client: Client,
    profileId: string,
    emitterId: string,
    req: TestRequestInput,
  ): Promise<TestResponse> {
    const endpoint = await endpointOf(client, emitterId);
    const url = endpoint.replace(/\/+$/, "") + (req.path === "/" ? "" : req.path);
    const headers = new Headers();
    for (const h of req.headers) if (!HOP_HEADERS.has(h.name.toLowerCase())) headers.append(h.name, h.value);
    const hasBody = req.body.trim() !== "" && req.method !== "GET";
    if (hasBody && !headers.has("content-type")) headers.set("content-type", "application/json");
    this.remember(profileId, emitterId, req);
    const started = Date.now();
    let res: Response;
    try {
      res = await this.fetchImpl(url, {
        method: req.method,
        headers,
        body: hasBody ? req.body : undefined,
        redirect: "manual",
        signal: AbortSignal.timeout(TIMEOUT_MS),
      });
    } catch (err) {
      const timedOut = err instanceof Error && err.name === "TimeoutError";
      throw new HostError(
        502,
        timedOut ? "timeout" : "network_error",
        timedOut
          ? `The endpoint did not answer within ${TIMEOUT_MS / 1000} s.`
          : "Could not reach the endpoint.",
      );
    }
    const { text, truncated } = await readText(res, RESPONSE_BODY_MAX);
    return {
      url,
      status: res.status,
      statusText: res.statusText,
      headers: [...res.headers.entries()],
      body: text,
      truncated,
      durationMs: Date.now() - started,
    };
  }

  private remember(profileId: string, emitterId: string, req: TestRequestInput): void {
    const key = `${profileId}:${emitterId}`;
    const settings = this.settings.read();
    const kept = keptCopy(req, Date.now());
    const same = (r: SavedTestRequest) =>
      JSON.stringify({ ...r, sentAt: 0 }) === JSON.stringify({ ...kept, sentAt: 0 });
    const previous = (settings.testRequests[key] ?? []).filter((r) => !same(r));
    const { [key]: _old, ...others } = settings.testRequests;
    // Most recently used emitter last in insertion order; the oldest ones go first when full.
    const entries = Object.entries(others).slice(-(EMITTERS_KEPT - 1));
    settings.testRequests = Object.fromEntries([
      ...entries,
      [key, [kept, ...previous].slice(0, TEST_REQUESTS_KEPT)],
    ]);
    this.settings.write(settings);
  }
}

async function readText(res: Response, max: number): Promise<{ text: string; truncated: boolean }> {
  if (!res.body) return { text: "", truncated: false };
  const reader = res.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  let truncated = false;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    chunks.push(value);
    size += value.byteLength;
    if (size > max) {
      truncated = true;
      await reader.cancel();
      break;
    }
  }
  const all = Buffer.concat(chunks).subarray(0, max);
  return { text: new TextDecoder().decode(all), truncated };
}
