/**
 * Endpoint request → SSE message at 200 ev/s, this checkout's build against another's, alone
 * (the latency case of events-relay.bench.ts without its ingest rounds), for measuring one
 * change: 500 events per build and round, the builds alternating and taking turns going first.
 *   npx tsx bench/latency-ab.ts [rounds=10]
 * HEADWATER_BENCH_BASELINE=<checkout>: the other build (built, with its own node_modules).
 */
import { median, pct, stopStreamSystems, streamRound, streamSystems } from "./event-probes.js";

const rounds = Number(process.argv[2] ?? 10);
const systems = (await streamSystems()).map((s) => ({ ...s, p50: [] as number[], p90: [] as number[], p99: [] as number[] }));
for (let round = 1; round <= rounds; round++) {
  const line: string[] = [];
  for (const s of round % 2 ? systems : [...systems].reverse()) {
    const first = round * 1_000_000;
    const { sent, latencies: l } = await streamRound(s.url, s.taps, { perSecond: 200, seconds: 2.5, first });
    s.p50.push(pct(l, 0.5));
    s.p90.push(pct(l, 0.9));
    s.p99.push(pct(l, 0.99));
    line.push(
      `${s.name} ${pct(l, 0.5).toFixed(2)} / ${pct(l, 0.9).toFixed(2)} / ${pct(l, 0.99).toFixed(2)} ms${l.length < sent ? ` (${l.length}/${sent} arrived)` : ""}`,
    );
  }
  console.log(`round ${round}, p50 / p90 / p99: ${line.join(", ")}`);
}
for (const s of systems) {
  console.log(
    `${s.name}: median of rounds p50 ${median(s.p50).toFixed(2)} ms, p90 ${median(s.p90).toFixed(2)} ms, p99 ${median(s.p99).toFixed(2)} ms`,
  );
}
await stopStreamSystems(systems);
