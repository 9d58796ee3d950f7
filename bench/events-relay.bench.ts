/**
 * Headwater next to what it is measured against (issue 20), in one run, alternating:
 * - endpoint request → SSE message: 500 events at 200 ev/s, one stream, on Headwater, on the
 *   relay, and on the relay through a process (each message there makes a round trip to a child
 *   process: the floor of any design that runs the source's code out of the server's process);
 *   3 rounds, after 2,000 paced events of warm-up each. First, on the warmed-up server: after
 *   the ingest rounds a server spends a minute indexing their hundreds of thousands of events
 *   for search, a state of its own (bench/after-burst.ts measures it; docs/benchmarks.md,
 *   26 Nov);
 * - ingest: wrk -t2 -c32, a small JSON POST, 5 s per system and round (3 rounds), on a
 *   source's endpoint (warm server, daily quota out of the way, the previous round's backlog
 *   run to the end first), on a bare node:http handler, and on a relay that stores nothing
 *   (smee.io's kind); each round another system goes first, and every window follows the same
 *   rest.
 * Printed per round, then the medians: ingest as a ratio to bare node:http in the same round, and
 * the server's CPU time per acknowledged request (until its backlog is stored: less at the mercy
 * of the machine's other load than a rate).
 *
 * `HEADWATER_BENCH_BASELINE=/path/to/another/checkout` also runs that checkout's server (its own
 * node_modules) in the same rounds: a change measured against the build before it.
 */
import type { ChildProcess } from "node:child_process";
import fs from "node:fs";
import type { Client } from "../shared/client/index.js";
import type { SpawnedServer } from "../test/support/server.js";
import {
  agent,
  hasWrk,
  ingestRate,
  median,
  pct,
  processCpuSeconds,
  relaySourceOn,
  spawnBare,
  spawnBenchServer,
  spawnRelay,
  streamRound,
  untilQueueEmpty,
  untilStored,
  warmUp,
  workerTaps,
  type WorkerTaps,
} from "./event-probes.js";
import { defineBench } from "./harness.js";

/**
 * Ingest rounds, as issue 20 measured (5 s × 3): with three systems taking turns going first,
 * each goes first once. (Six rounds, each first twice, gave medians no steadier here: 0.40 to
 * 0.50 against 0.44 to 0.51 in three runs each.)
 */
const INGEST_ROUNDS = 3;
const LATENCY_ROUNDS = 3;
const INGEST_SECONDS = 5;
/** Idle before every measured window, ingest and latency alike (see the ingest rounds' loop). */
const REST_MS = 2000;
const RATE = 200;
const EVENTS = 500;
/** Paced events per system before the measured rounds (10 s at RATE). */
const LATENCY_WARMUP_EVENTS = 2000;

interface Headwater {
  name: string;
  server: SpawnedServer;
  dataDir: string;
  client: Client;
  apiKey: string;
  ingest: string;
  /** Events the ingest source should hold once its backlog is stored. */
  acknowledged: number;
  latency: string;
  isolation: string;
}

async function startHeadwater(name: string, root?: string): Promise<Headwater> {
  const { server, dataDir, apiKey, client } = await spawnBenchServer(name, {
    ...(root ? { root } : {}),
    profDir: process.env.HEADWATER_BENCH_CPU_PROF,
  });
  const health = (await (await fetch(`${server.origin}/healthz`)).json()) as {
    sandbox?: { isolation?: string };
  };
  const ingest = await relaySourceOn(client, "ingest");
  const latency = await relaySourceOn(client, "latency");
  await warmUp(client, server.origin, await relaySourceOn(client, "warm-up"));
  return {
    name,
    server,
    dataDir,
    client,
    apiKey,
    ingest,
    acknowledged: 0,
    latency,
    isolation: health.sandbox?.isolation ?? "?",
  };
}

const fmt = (n: number, d = 1) => (Number.isFinite(n) ? n.toFixed(d) : "-");

export default defineBench("events vs relay", async () => {
  const bare = await spawnBare();
  const relay = await spawnRelay();
  const relayThrough = await spawnRelay({ throughProcess: true });
  const systems: Headwater[] = [await startHeadwater("headwater")];
  const baselineRoot = process.env.HEADWATER_BENCH_BASELINE;
  if (baselineRoot) systems.push(await startHeadwater("previous build", baselineRoot));
  for (const hw of systems) console.log(`  · ${hw.name}: sandbox isolation ${hw.isolation}`);
  const children: ChildProcess[] = [bare.child, relay.child, relayThrough.child];

  return {
    cases: [
      {
        name: `request → SSE, ${EVENTS} at ${RATE}/s, alternating`,
        iterations: 1,
        warmup: 0,
        run: async () => {
          const taps: Array<{ name: string; taps: WorkerTaps; url: string }> = [
            { name: "relay", taps: await workerTaps([`${relay.origin}/sse`], ""), url: `${relay.origin}/e` },
            {
              name: "relay through a process",
              taps: await workerTaps([`${relayThrough.origin}/sse`], ""),
              url: `${relayThrough.origin}/e`,
            },
          ];
          for (const hw of systems) {
            taps.push({
              name: hw.name,
              taps: await workerTaps([`${hw.server.origin}/sources/${hw.latency}/sse`], hw.apiKey),
              url: `${hw.server.origin}/e/${hw.latency}`,
            });
          }
          // The paced path warms up too: a server's first few thousand paced events (a single
          // event per commit, its SSE message) have a p99 about twice a running server's
          // (bench/latency-ab.ts, 16 rounds: 3.5 to 4.2 ms in the first two, 1.7 to 2.3 from the
          // ninth). Printed, not counted: what a server that has run for a while gives is measured.
          for (const t of taps) {
            const l = (await streamRound(t.url, t.taps, { perSecond: RATE, seconds: LATENCY_WARMUP_EVENTS / RATE, first: 1 })).latencies;
            console.log(`  · warm-up, ${LATENCY_WARMUP_EVENTS} paced events (not counted): ${t.name} ${fmt(pct(l, 0.5), 2)} / ${fmt(pct(l, 0.99), 2)} ms`);
          }
          const results = new Map<string, Array<{ p50: number; p99: number }>>();
          for (let round = 1; round <= LATENCY_ROUNDS; round++) {
            const line: string[] = [];
            // Taking turns going first, each after the same rest, as the ingest rounds do.
            const turn = (round - 1) % taps.length;
            for (const t of [...taps.slice(turn), ...taps.slice(0, turn)]) {
              await new Promise((r) => setTimeout(r, REST_MS));
              const first = round * 1_000_000;
              const { sent, latencies: l } = await streamRound(t.url, t.taps, {
                perSecond: RATE,
                seconds: EVENTS / RATE,
                first,
              });
              const r = { p50: pct(l, 0.5), p99: pct(l, 0.99) };
              (results.get(t.name) ?? results.set(t.name, []).get(t.name)!).push(r);
              line.push(
                `${t.name} ${fmt(r.p50, 2)} / ${fmt(r.p99, 2)} ms${l.length < sent ? ` (${l.length}/${sent} arrived)` : ""}`,
              );
            }
            console.log(`  · round ${round}, p50 / p99: ${line.join(", ")}`);
          }
          for (const [name, rs] of results) {
            console.log(
              `  · request → SSE, median of rounds: ${name} p50 ${fmt(median(rs.map((r) => r.p50)), 2)} ms, p99 ${fmt(median(rs.map((r) => r.p99)), 2)} ms`,
            );
          }
          for (const t of taps) await t.taps.close();
        },
      },
      {
        name: `ingest, ${INGEST_ROUNDS} × ${INGEST_SECONDS} s each, alternating`,
        iterations: 1,
        warmup: 0,
        run: async () => {
          console.log(
            `  · client: ${hasWrk ? "wrk -t2 -c32" : "the bench's own (wrk not installed), 32 in flight"}, a ${80}-byte JSON POST`,
          );
          const ratios = new Map<string, number[]>();
          /** Server CPU µs per acknowledged request, its backlog's runs included (the sandbox workers' not). */
          const cpu = new Map<string, number[]>();
          const push = (m: Map<string, number[]>, k: string, v: number) =>
            (m.get(k) ?? m.set(k, []).get(k)!).push(v);
          // Each system's window, as a step of a round: what it printed, and its rate for the ratio.
          type Step = { name: string; window: () => Promise<{ perSecond: number; text: string }> };
          const steps: Step[] = [
            {
              name: "bare node:http",
              window: async () => {
                const c0 = processCpuSeconds(bare.child.pid);
                const b = await ingestRate(`${bare.origin}/`, INGEST_SECONDS);
                const us = ((processCpuSeconds(bare.child.pid) - c0) * 1e6) / (b.perSecond * INGEST_SECONDS);
                push(cpu, "bare node:http", us);
                return {
                  perSecond: b.perSecond,
                  text: `bare node:http ${fmt(b.perSecond, 0)}/s, ${fmt(us, 0)} µs CPU/req`,
                };
              },
            },
            {
              name: "relay",
              window: async () => {
                const r = await ingestRate(`${relay.origin}/e`, INGEST_SECONDS);
                return { perSecond: r.perSecond, text: `relay ${fmt(r.perSecond, 0)}/s` };
              },
            },
            ...systems.map((hw) => ({
              name: hw.name,
              window: async () => {
                const s0 = processCpuSeconds(hw.server.child.pid);
                const h = await ingestRate(`${hw.server.origin}/e/${hw.ingest}`, INGEST_SECONDS);
                const acked = Math.round(h.perSecond * INGEST_SECONDS);
                hw.acknowledged += acked;
                await untilStored(hw.client, hw.ingest, hw.acknowledged * 0.99);
                await untilQueueEmpty(hw.server.origin, hw.apiKey);
                const us = ((processCpuSeconds(hw.server.child.pid) - s0) * 1e6) / acked;
                push(cpu, hw.name, us);
                return {
                  perSecond: h.perSecond,
                  text: `${hw.name} ${fmt(h.perSecond, 0)}/s, ${fmt(us, 0)} µs CPU/req${h.failed ? `, ${h.failed} refused` : ""}`,
                };
              },
            })),
          ];
          for (let round = 1; round <= INGEST_ROUNDS; round++) {
            // Who goes first turns each round, and every window starts after the same rest: on the
            // machines here a window run straight after another's load measured about 8 % slower
            // (two identical bare servers, 10 rounds of 10; none with a 2 s rest before each).
            const turn = (round - 1) % steps.length;
            const order = [...steps.slice(turn), ...steps.slice(0, turn)];
            const results = new Map<string, { perSecond: number; text: string }>();
            for (const step of order) {
              await new Promise((r) => setTimeout(r, REST_MS));
              results.set(step.name, await step.window());
            }
            const bareRate = results.get("bare node:http")!.perSecond;
            const line = order.map((step) => {
              const r = results.get(step.name)!;
              if (step.name === "bare node:http") return r.text;
              const ratio = r.perSecond / bareRate;
              push(ratios, step.name, ratio);
              return `${r.text} (${fmt(ratio, 3)})`;
            });
            console.log(`  · round ${round}: ${line.join(", ")}`);
          }
          for (const [name, xs] of ratios)
            console.log(`  · ingest ratio to bare node:http, median: ${name} ${fmt(median(xs), 3)}`);
          for (const [name, xs] of cpu)
            console.log(
              `  · server CPU per acknowledged request (its backlog's runs included), median: ${name} ${fmt(median(xs), 0)} µs`,
            );
        },
      },
    ],
    teardown: async () => {
      agent.destroy();
      for (const c of children) c.kill();
      for (const hw of systems) {
        await hw.server.stop();
        fs.rmSync(hw.dataDir, { recursive: true, force: true });
      }
    },
  };
});
