/**
 * Agents (MCP), run by `npm run bench mcp`: what a tool call costs next to the REST call it
 * wraps, measured in the same run against one server (SQLite), each figure beside its baseline:
 * - `list_events` (20 events of ~300 bytes, data expanded) over Streamable HTTP, protocol
 *   2026-07-28 (stateless: one POST per call) and 2025-11-25 with the SDK's client, and as a
 *   bare POST (the server's share, without the client library's), against
 *   `GET /sources/{id}/event_summaries?limit=20&expand=event` with the typed client; `whoami`
 *   against `GET /users/me` shows the fixed cost of a call;
 * - `wait_for_events`: from the request to a source's endpoint to the tool's answer, against the
 *   same request to the message on the source's SSE stream (`/sources/{id}/sse`), interleaved.
 * The target (docs/agents.md): a tool call within 1.5x of its REST call at the median.
 */
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { createParser } from "eventsource-parser";
import { echoSource } from "../test/mcp/fixtures.js";
import { uniqueKey } from "../test/support/fixtures.js";
import { startServer } from "../test/support/server.js";
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
  const s = await startServer();
  const u = await s.newUser("bench");
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
  // The same call as one bare POST (what the server costs, without the SDK client's own work).
  const envelope = { "io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientInfo": { name: "bench", version: "1" }, "io.modelcontextprotocol/clientCapabilities": {} };
  const rawBody = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { ...listArgs, _meta: envelope } });
  const rawHeaders = {
    authorization: `Bearer ${u.key}`,
    "content-type": "application/json",
    accept: "application/json, text/event-stream",
    "mcp-protocol-version": "2026-07-28",
    "mcp-method": "tools/call",
    "mcp-name": "list_events",
  };
  const rawCall = async () => {
    const res = await fetch(`${s.origin}/mcp`, { method: "POST", headers: rawHeaders, body: rawBody });
    const answer = (await res.json()) as { result?: { isError?: boolean } };
    if (!answer.result || answer.result.isError) throw new Error(JSON.stringify(answer));
  };

  const cases: BenchCase[] = [
    { name: "REST GET /users/me", run: () => u.client.getMe() },
    { name: "MCP whoami (2026-07-28)", run: () => modern.callTool({ name: "whoami", arguments: {} }) },
    { name: "REST event_summaries limit=20 expand=event", run: () => u.client.listSourceEvents(src.id, { limit: 20, expand: "event" }) },
    { name: "MCP list_events 20 (2026-07-28)", run: () => modern.callTool(listArgs) },
    { name: "MCP list_events 20 (2025-11-25)", run: () => legacy.callTool(listArgs) },
    { name: "MCP list_events 20, bare POST (2026-07-28)", run: rawCall },
    {
      // The ratios that matter, measured interleaved (a call of each in turn, every round), so that
      // a machine's changing load weighs on both sides alike.
      name: `interleaved: REST vs MCP calls, ${ROUNDS * 5} rounds`,
      iterations: 1,
      warmup: 0,
      run: async () => {
        const pairs: Array<[string, () => Promise<unknown>]> = [
          ["REST event_summaries limit=20 expand=event", () => u.client.listSourceEvents(src.id, { limit: 20, expand: "event" })],
          ["MCP list_events 20 (2026-07-28)", () => modern.callTool(listArgs)],
          ["MCP list_events 20 (2025-11-25)", () => legacy.callTool(listArgs)],
          ["MCP list_events 20, bare POST (2026-07-28)", rawCall],
          ["REST GET /users/me", () => u.client.getMe()],
          ["MCP whoami (2026-07-28)", () => modern.callTool({ name: "whoami", arguments: {} })],
        ];
        const times = new Map<string, number[]>(pairs.map(([n]) => [n, []]));
        for (let r = 0; r < ROUNDS * 5 + 20; r++) {
          for (const [name, fn] of pairs) {
            const t0 = performance.now();
            await fn();
            if (r >= 20) times.get(name)!.push(performance.now() - t0);
          }
        }
        const med = (n: string) => quantile(times.get(n)!, 0.5);
        for (const [name] of pairs) {
          console.log(`  · ${name.padEnd(44)}median ${med(name).toFixed(2).padStart(7)} ms   p95 ${quantile(times.get(name)!, 0.95).toFixed(2).padStart(7)} ms`);
        }
        const base = "REST event_summaries limit=20 expand=event";
        for (const name of ["MCP list_events 20 (2026-07-28)", "MCP list_events 20 (2025-11-25)", "MCP list_events 20, bare POST (2026-07-28)"]) {
          console.log(`  · ratio ${name} / REST at the median: ${(med(name) / med(base)).toFixed(2)}`);
        }
        console.log(`  · ratio MCP whoami / REST GET /users/me at the median: ${(med("MCP whoami (2026-07-28)") / med("REST GET /users/me")).toFixed(2)}`);
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
        console.log(`  · ratio wait_for_events / SSE at the median: ${(quantile(viaTool, 0.5) / quantile(viaSse, 0.5)).toFixed(2)}`);
      },
    },
  ];

  return {
    cases,
    ratios: [
      ["MCP whoami (2026-07-28)", "REST GET /users/me"],
      ["MCP list_events 20 (2026-07-28)", "REST event_summaries limit=20 expand=event"],
      ["MCP list_events 20 (2025-11-25)", "REST event_summaries limit=20 expand=event"],
      ["MCP list_events 20, bare POST (2026-07-28)", "REST event_summaries limit=20 expand=event"],
    ],
    teardown: async () => {
      await modern.close();
      await legacy.close();
      await s.stop();
    },
  };
});
