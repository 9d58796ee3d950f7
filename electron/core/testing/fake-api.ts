/**
 * A small stand-in for the Headwater API, for tests of the SSE client and the stream manager:
 * `GET /sources/{id}/sse` (with Last-Event-ID resume), `GET /v1/sources/{id}/event_summaries`,
 * a workflow's runs (`GET /workflows/{id}/runs/sse` without backlog, `GET /v1/workflows/{id}/runs`;
 * `p_noruns` answers 404 to both, as a server without runs), and `GET /v1/users/me`, all behind
 * one bearer key. Tests drive it: emit events, cut every
 * stream, go silent, change the key. The real server is exercised by the e2e tests.
 */
import http from "node:http";
import type { AddressInfo } from "node:net";
import type { EventSummary, Run } from "../../../shared/resources/index.js";

export interface FakeApi {
  url: string;
  /** The `/v1` base. */
  baseUrl: string;
  key: string;
  /** Stores an event and writes it to every open stream of that source (unless `silent`). */
  emit(sourceId: string, event: unknown, opts?: { channel?: string; silent?: boolean; summary?: string }): EventSummary;
  /** Stores a run as it is now (newest first in lists) and writes it to its workflow's runs streams. */
  putRun(run: Run, opts?: { silent?: boolean }): void;
  /** Makes `GET /v1/sources/{id}` and the source list know a source (for UI tests and benches). */
  addSource(id: string, name: string): void;
  /** Events kept per emitter (default: all), as the real server's retention. */
  retention: number;
  /** Destroys every open SSE response (as a crashing server or a broken network would). */
  dropStreams(): void;
  /** Sends a `:sse-handshake` comment to every open stream. */
  handshake(): void;
  /** Open SSE responses now. */
  openStreams(): number;
  /** Every request, in order: method, path with query, Last-Event-ID and Authorization headers. */
  requests: Array<{ method: string; url: string; lastEventId?: string; authorization?: string }>;
  setKey(key: string): void;
  /** When true, SSE requests get headers but no bytes at all (to trip a watchdog). */
  mute: boolean;
  /** When false, Last-Event-ID is ignored (as a server without resume): clients must back-fill. */
  resume: boolean;
  close(): Promise<void>;
}

export async function startFakeApi(key = "test-key-0123456789abcdef"): Promise<FakeApi> {
  const events = new Map<string, EventSummary[]>();
  const runs = new Map<string, Run>();
  const sources = new Map<string, Record<string, unknown>>();
  const streams = new Set<{ res: http.ServerResponse; sourceId: string; channels: Set<string> }>();
  const requests: FakeApi["requests"] = [];
  let currentKey = key;
  let lastMs = 0;
  let seq = 0;

  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? "/", "http://x");
    requests.push({
      method: req.method ?? "GET",
      url: url.pathname + url.search,
      lastEventId: header(req, "last-event-id"),
      authorization: header(req, "authorization"),
    });
    if (req.headers.authorization !== `Bearer ${currentKey}`) {
      res.writeHead(401, { "content-type": "application/json" });
      res.end(JSON.stringify({ error: "invalid API key", code: "unauthorized" }));
      return;
    }
    let m = /^\/sources\/([^/]+)\/sse$/.exec(url.pathname) ?? /^\/sse\/dc\/([^/]+)\/emits$/.exec(url.pathname);
    const obs = /^\/sse\/dc\/([^/]+)\/observations$/.exec(url.pathname);
    if (m || obs) {
      const sourceId = (m ?? obs)![1]!;
      if (!sourceId.startsWith("dc_") || sourceId === "dc_missing") {
        res.writeHead(404, { "content-type": "application/json" });
        res.end(JSON.stringify({ error: "source not found", code: "not_found" }));
        return;
      }
      const channels = new Set(obs ? ["$logs", "$errors"] : [""]);
      res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
      res.flushHeaders();
      if (api.mute) return void streams.add({ res, sourceId, channels: new Set() });
      res.write(":sse-handshake\n\n");
      const after = header(req, "last-event-id") ?? url.searchParams.get("last_event_id") ?? undefined;
      if (after && api.resume) {
        for (const e of events.get(sourceId) ?? []) {
          if (channels.has(e.metadata.name) && cmp(e.id, after) > 0) res.write(frame(e));
        }
      }
      const entry = { res, sourceId, channels };
      streams.add(entry);
      res.on("close", () => streams.delete(entry));
      return;
    }
    const runsStream = /^\/workflows\/(p_[^/]+)\/runs\/sse$/.exec(url.pathname);
    const runsList = /^\/v1\/workflows\/(p_[^/]+)\/runs$/.exec(url.pathname);
    if ((runsStream ?? runsList)?.[1] === "p_noruns") {
      json(res, 404, { error: `Route GET:${url.pathname} not found`, code: "not_found" });
      return;
    }
    if (runsStream) {
      res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
      res.write(":sse-handshake\n\n");
      const entry = { res, sourceId: runsStream[1]!, channels: new Set([RUNS]) };
      streams.add(entry);
      res.on("close", () => streams.delete(entry));
      return;
    }
    if (runsList) {
      const list = [...runs.values()].filter((r) => r.workflow_id === runsList[1]).reverse();
      const page = list.slice(0, Number(url.searchParams.get("limit") ?? 10));
      const cursors = { start_cursor: page[0]?.id ?? null, end_cursor: page.at(-1)?.id ?? null };
      json(res, 200, { page_info: { total_count: list.length, count: page.length, ...cursors }, data: page });
      return;
    }
    const wfErrors = /^\/v1\/workflows\/(p_[^/]+)\/\$errors\/event_summaries$/.exec(url.pathname);
    m =
      /^\/v1\/sources\/([^/]+)\/event_summaries$/.exec(url.pathname) ??
      /^\/v1\/workflows\/(p_[^/]+)\/event_summaries$/.exec(url.pathname) ??
      wfErrors;
    if (m?.[1] === "p_missing") {
      json(res, 404, { error: "workflow not found", code: "not_found" });
      return;
    }
    if (m) {
      const channel = wfErrors ? "$errors" : (url.searchParams.get("event_name") ?? "");
      const limit = Number(url.searchParams.get("limit") ?? 10);
      const after = url.searchParams.get("after");
      const before = url.searchParams.get("before");
      const all = (events.get(m[1]!) ?? []).filter((e) => e.metadata.name === channel).slice().reverse();
      const list = after
        ? all.filter((e) => cmp(e.id, after) < 0).slice(0, limit)
        : before
          ? all.filter((e) => cmp(e.id, before) > 0).slice(-limit)
          : all.slice(0, limit);
      json(res, 200, {
        page_info: {
          total_count: all.length,
          count: list.length,
          start_cursor: list[0]?.id ?? null,
          end_cursor: list.at(-1)?.id ?? null,
        },
        data: list,
      });
      return;
    }
    const sourceMatch = /^\/v1\/sources\/(dc_[A-Za-z0-9]+)$/.exec(url.pathname);
    if (sourceMatch && req.method === "GET") {
      const source = sources.get(sourceMatch[1]!);
      if (source) json(res, 200, { data: source });
      else json(res, 404, { error: "source not found", code: "not_found" });
      return;
    }
    if (url.pathname === "/v1/users/me/sources/" || url.pathname === "/v1/users/me/sources") {
      const list = [...sources.values()].reverse();
      json(res, 200, {
        page_info: { total_count: list.length, count: list.length, start_cursor: null, end_cursor: null },
        data: list,
      });
      return;
    }
    // Connected accounts: one listed account; `apn_used` is referenced by a source (409 on delete).
    if (url.pathname === "/v1/users/me/accounts") {
      const account = { id: "apn_one", app: "postgresql", name: "db", fields: ["host", "password"], used_by: 1, created_at: 1, updated_at: 1 };
      json(res, 200, { page_info: { total_count: 1, count: 1, start_cursor: "apn_one", end_cursor: "apn_one" }, data: [account] });
      return;
    }
    if (url.pathname === "/v1/accounts/apn_used" && req.method === "DELETE") {
      json(res, 409, {
        error: "account apn_used is in use",
        code: "account_in_use",
        details: [{ path: "sources.dc_a", message: 'source "a" (dc_a) prop pg' }],
      });
      return;
    }
    if (url.pathname === "/v1/users/me/api_key" && req.method === "POST") {
      currentKey = `rotated-${Math.random().toString(36).slice(2)}-key`;
      json(res, 200, { data: { id: "u_test", username: "tester", email: "t@example.com", api_key: currentKey } });
      return;
    }
    if (url.pathname === "/v1/users/me") {
      json(res, 200, { data: { id: "u_test", username: "tester", email: "t@example.com", api_key: currentKey } });
      return;
    }
    json(res, 404, { error: "not found", code: "not_found" });
  });

  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  const url = `http://127.0.0.1:${port}`;

  const api: FakeApi = {
    url,
    baseUrl: `${url}/v1`,
    get key() {
      return currentKey;
    },
    requests,
    mute: false,
    resume: true,
    retention: Number.POSITIVE_INFINITY,
    addSource(id, name) {
      const now = Math.floor(Date.now() / 1000);
      sources.set(id, {
        id,
        component_id: "sc_fake",
        configured_props: {},
        active: true,
        created_at: now,
        updated_at: now,
        name,
        name_slug: name.toLowerCase().replace(/[^a-z0-9]+/g, "-"),
      });
    },
    emit(sourceId, event, opts = {}) {
      const now = Date.now();
      seq = now > lastMs ? 0 : seq + 1;
      lastMs = Math.max(now, lastMs);
      const id = `${lastMs}-${seq}`;
      const summary: EventSummary = {
        id,
        indexed_at_ms: lastMs,
        event,
        metadata: {
          emit_id: `e${id}`,
          name: opts.channel ?? "",
          emitter_id: sourceId,
          ...(opts.summary !== undefined ? { summary: opts.summary } : {}),
        },
      };
      const list = events.get(sourceId) ?? [];
      list.push(summary);
      if (list.length > api.retention * 2) list.splice(0, list.length - api.retention);
      events.set(sourceId, list);
      if (!opts.silent) {
        for (const s of streams) {
          if (s.sourceId === sourceId && s.channels.has(summary.metadata.name)) s.res.write(frame(summary));
        }
      }
      return summary;
    },
    putRun(run, opts = {}) {
      runs.delete(run.id);
      runs.set(run.id, run);
      if (opts.silent) return;
      for (const s of streams) {
        if (s.sourceId === run.workflow_id && s.channels.has(RUNS))
          s.res.write(`id: ${run.id}\ndata: ${JSON.stringify(run)}\n\n`);
      }
    },
    dropStreams() {
      for (const s of streams) s.res.destroy();
      streams.clear();
    },
    handshake() {
      for (const s of streams) s.res.write(":sse-handshake\n\n");
    },
    openStreams: () => streams.size,
    setKey(k) {
      currentKey = k;
    },
    async close() {
      api.dropStreams();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  return api;
}

/** The channel mark of a runs stream among the open streams (no event has this channel). */
const RUNS = "\0runs";

function frame(e: EventSummary): string {
  return `id: ${e.id}\ndata: ${JSON.stringify(e)}\n\n`;
}

function cmp(a: string, b: string): number {
  const [am, as] = a.split("-").map(Number) as [number, number];
  const [bm, bs] = b.split("-").map(Number) as [number, number];
  return am - bm || as - bs;
}

function header(req: http.IncomingMessage, name: string): string | undefined {
  const v = req.headers[name];
  return Array.isArray(v) ? v[0] : v;
}

function json(res: http.ServerResponse, status: number, body: unknown) {
  res.writeHead(status, { "content-type": "application/json" });
  res.end(JSON.stringify(body));
}
