/**
 * Agents (MCP), run by `npm run bench mcp`: what a tool call costs next to the REST call it
 * wraps, measured in the same run against one server (the built server in a process of its own,
 * as deployed, on SQLite), each figure beside its baseline:
 * - `list_events` (20 events of ~300 bytes, data expanded) against
 *   `GET /sources/{id}/event_summaries?limit=20&expand=event`, and `whoami` against
 *   `GET /users/me` (the fixed cost of a call), each pair two ways:
 *   - bare: one request with `fetch` and `JSON.parse` on both sides (protocol 2026-07-28: one
 *     POST per call), so that the pair differs by what the server does and nothing else;
 *   - with each side's client library: the typed client (which validates the answer with the
 *     shared schemas) against the SDK's `Client` (which validates its own way), 2026-07-28 and
 *     2025-11-25;
 * - `wait_for_events`: from the request to a source's endpoint to the tool's answer, against the
 *   same request to the message on the source's SSE stream (`/sources/{id}/sse`), interleaved.
 * The target (docs/agents.md): a tool call within 1.5x of its REST call at the median.
 */
import fs from "node:fs";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { createParser } from "eventsource-parser";
import { echoSource } from "../test/mcp/fixtures.js";
import { createClient } from "../shared/client/index.js";
import { uniqueKey } from "../test/support/fixtures.js";
import { randomKey, spawnServer, tempDataDir } from "../test/support/server.js";
import { defineBench, type BenchCase } from "./harness.js";

const ROUNDS = Number(process.env.HEADWATER_BENCH_ROUNDS ?? 60);

const quantile = (xs: number[], q: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(q * xs.length))]!;

async function mcpClient(origin: string, key: string, era: "2025-11-25" | "2026-07-28"): Promise<Client> {
  const client = new Client({ name: "bench", version: "1" }, era === "2026-07-28" ? { versionNegotiation: { mode: { pin: era } } } : {});
  await client.connect(new StreamableHTTPClientTransport(new URL(`${origin}/mcp`), { requestInit: { headers: { Authorization: `Bearer ${key}` } } }));
  return client;
}

/** The source's SSE stream, open for the whole run: resolves the waiter of each next message. */
async function openSse(url: string, key: string) {
  const controller = new AbortController();
  const res = await fetch(url, { headers: { Authorization: `Bearer ${key}`, Accept: "text/event-stream" }, signal: controller.signal });
  let next: (() => void) | undefined;
  const parser = createParser({ onEvent: () => next?.() });
  void (async () => {
    const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
    for (;;) {
      const { done, value } = await reader.read().catch(() => ({ done: true, value: undefined }));
      if (done || value === undefined) return;
      parser.feed(value);
    }
  })();
  return {
    message: () => new Promise<void>((resolve) => (next = resolve)),
    close: () => controller.abort(),
  };
}

export default defineBench("mcp", async () => {
  const dataDir = tempDataDir();
  const adminKey = randomKey();
  const s = await spawnServer({ dataDir, apiKey: adminKey, env: { HEADWATER_LOG_LEVEL: "error" } });
  const admin = createClient({ baseUrl: s.baseUrl, apiKey: adminKey });
  const created = await admin.createUser({ username: "bench", email: "bench@example.test" });
  const u = { key: created.api_key!, client: createClient({ baseUrl: s.baseUrl, apiKey: created.api_key! }) };
  const src = await u.client.createSource({ component_code: echoSource(uniqueKey("bench-echo")), name: "bench" });
  const endpoint = `${s.origin}/e/${src.id}`;
  const post = (body: unknown) =>
    fetch(endpoint, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) }).then((r) => r.text());
  // 40 events of ~300 bytes: every list below answers 20 of them.
  for (let i = 0; i < 40; i++) await post({ i, order: `order-${i}`, items: Array.from({ length: 6 }, (_, k) => ({ sku: `sku-${k}`, qty: k + 1 })), note: "x".repeat(80) });
  while ((await u.client.listSourceEvents(src.id, { limit: 1 })).page_info.total_count < 40) await new Promise((r) => setTimeout(r, 50));

  const modern = await mcpClient(s.origin, u.key, "2026-07-28");
  const legacy = await mcpClient(s.origin, u.key, "2025-11-25");
  const listArgs = { name: "list_events", arguments: { id: src.id, limit: 20 } };
  const whoamiArgs = { name: "whoami", arguments: {} };

  // Bare calls: what the server costs, without either client library's own work.
  const envelope = { "io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientInfo": { name: "bench", version: "1" }, "io.modelcontextprotocol/clientCapabilities": {} };
  const bareTool = (params: { name: string; arguments: Record<string, unknown> }) => {
    const body = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { ...params, _meta: envelope } });
    const headers = {
      authorization: `Bearer ${u.key}`,
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      "mcp-protocol-version": "2026-07-28",
      "mcp-method": "tools/call",
      "mcp-name": params.name,
    };
    return async () => {
      const res = await fetch(`${s.origin}/mcp`, { method: "POST", headers, body });
      const answer = (await res.json()) as { result?: { isError?: boolean } };
      if (!answer.result || answer.result.isError) throw new Error(JSON.stringify(answer));
    };
  };
  const bareRest = (path: string) => async () => {
    const res = await fetch(`${s.baseUrl}${path}`, { headers: { authorization: `Bearer ${u.key}` } });
    const answer = (await res.json()) as unknown;
    if (!res.ok) throw new Error(JSON.stringify(answer));
  };

  const LIST_REST = "REST event_summaries 20, bare GET";
  const LIST_MCP = "MCP list_events 20, bare POST";
  const ME_REST = "REST GET /users/me, bare";
  const ME_MCP = "MCP whoami, bare POST";
  const LIST_REST_CLIENT = "REST event_summaries 20, typed client";
  const LIST_MCP_CLIENT = "MCP list_events 20, SDK client (2026-07-28)";
  const LIST_MCP_LEGACY = "MCP list_events 20, SDK client (2025-11-25)";
  const ME_REST_CLIENT = "REST GET /users/me, typed client";
  const ME_MCP_CLIENT = "MCP whoami, SDK client (2026-07-28)";
  const calls: Array<[string, () => Promise<unknown>]> = [
    [LIST_REST, bareRest(`/sources/${src.id}/event_summaries?limit=20&expand=event`)],
    [LIST_MCP, bareTool(listArgs)],
    [ME_REST, bareRest("/users/me")],
    [ME_MCP, bareTool(whoamiArgs)],
    [LIST_REST_CLIENT, () => u.client.listSourceEvents(src.id, { limit: 20, expand: "event" })],
    [LIST_MCP_CLIENT, () => modern.callTool(listArgs)],
    [LIST_MCP_LEGACY, () => legacy.callTool(listArgs)],
    [ME_REST_CLIENT, () => u.client.getMe()],
    [ME_MCP_CLIENT, () => modern.callTool(whoamiArgs)],
  ];
  const pairs: Array<[string, string]> = [
    [LIST_MCP, LIST_REST],
    [ME_MCP, ME_REST],
    [LIST_MCP_CLIENT, LIST_REST_CLIENT],
    [LIST_MCP_LEGACY, LIST_REST_CLIENT],
    [ME_MCP_CLIENT, ME_REST_CLIENT],
  ];

  // Each call is measured interleaved only, and each pair's ratio printed once, at the median (the
  // calls measured one after another as well, as this once did, printed the same pairs a second
  // time with other figures).
  const cases: BenchCase[] = [
    {
      // The ratios that matter, measured interleaved (a call of each in turn, every round), so that
      // a machine's changing load weighs on both sides alike.
      name: `interleaved: REST vs MCP calls, ${ROUNDS * 5} rounds`,
      iterations: 1,
      warmup: 0,
      run: async () => {
        const times = new Map<string, number[]>(calls.map(([n]) => [n, []]));
        for (let r = 0; r < ROUNDS * 5 + 20; r++) {
          for (const [name, fn] of calls) {
            const t0 = performance.now();
            await fn();
            if (r >= 20) times.get(name)!.push(performance.now() - t0);
          }
        }
        const med = (n: string) => quantile(times.get(n)!, 0.5);
        for (const [name] of calls) {
          console.log(`  · ${name.padEnd(46)}median ${med(name).toFixed(2).padStart(7)} ms   p95 ${quantile(times.get(name)!, 0.95).toFixed(2).padStart(7)} ms`);
        }
        for (const [a, b] of pairs) console.log(`  · ratio ${a} / ${b}, median: ${(med(a) / med(b)).toFixed(2)}`);
      },
    },
    {
      name: `endpoint request → answer: SSE vs wait_for_events, ${ROUNDS} rounds`,
      iterations: 1,
      warmup: 0,
      run: async () => {
        const sse = await openSse(`${s.origin}/sources/${src.id}/sse`, u.key);
        const viaSse: number[] = [];
        const viaTool: number[] = [];
        try {
          for (let r = 0; r < ROUNDS + 5; r++) {
            // SSE: the stream is open; time the request to the message.
            const got = sse.message();
            let t0 = performance.now();
            await post({ r, via: "sse" });
            await got;
            const sseMs = performance.now() - t0;
            // The tool: its wait is open (after the newest event) before the request is sent.
            const newest = (await u.client.listSourceEvents(src.id, { limit: 1 })).data[0]!.id;
            const answer = modern.callTool({ name: "wait_for_events", arguments: { id: src.id, after_event_id: newest, timeout_seconds: 30 } });
            await new Promise((res) => setTimeout(res, 30));
            t0 = performance.now();
            await post({ r, via: "tool" });
            const result = await answer;
            const toolMs = performance.now() - t0;
            if (result.isError || (result.structuredContent as { events: unknown[] }).events.length === 0) throw new Error(`wait_for_events: ${JSON.stringify(result)}`);
            if (r >= 5) {
              viaSse.push(sseMs);
              viaTool.push(toolMs);
            }
          }
        } finally {
          sse.close();
        }
        const line = (name: string, xs: number[]) =>
          `  · ${name.padEnd(44)}median ${quantile(xs, 0.5).toFixed(2).padStart(7)} ms   p95 ${quantile(xs, 0.95).toFixed(2).padStart(7)} ms`;
        console.log(line("endpoint request → SSE message", viaSse));
        console.log(line("endpoint request → wait_for_events answer", viaTool));
        console.log(`  · ratio wait_for_events / SSE, median: ${(quantile(viaTool, 0.5) / quantile(viaSse, 0.5)).toFixed(2)}`);
      },
    },
  ];

  return {
    cases,
    teardown: async () => {
      await modern.close();
      await legacy.close();
      await s.stop();
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
});
