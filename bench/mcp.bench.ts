/**
 * Agents (MCP), run by `npm run bench mcp`: what a tool call costs next to the REST call it
 * wraps, measured in the same run against one server (SQLite), each figure beside its baseline:
 * - `list_events` (20 events of ~300 bytes, data expanded) over Streamable HTTP, protocol
 *   2026-07-28 (stateless: one POST per call) and 2025-11-25, against
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

  const cases: BenchCase[] = [
    { name: "REST GET /users/me", run: () => u.client.getMe() },
    { name: "MCP whoami (2026-07-28)", run: () => modern.callTool({ name: "whoami", arguments: {} }) },
    { name: "REST event_summaries limit=20 expand=event", run: () => u.client.listSourceEvents(src.id, { limit: 20, expand: "event" }) },
    { name: "MCP list_events 20 (2026-07-28)", run: () => modern.callTool(listArgs) },
    { name: "MCP list_events 20 (2025-11-25)", run: () => legacy.callTool(listArgs) },
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
    ],
    teardown: async () => {
      await modern.close();
      await legacy.close();
      await s.stop();
    },
  };
});
