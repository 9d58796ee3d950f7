/**
 * Requests that reach one source together: groups of G requests sent at once, a group every
 * G × 5 ms (200 ev/s in all), each request's latency to its SSE message. A webhook sender
 * retrying a backlog, or several clients at once, look like this; the paced stream of
 * latency-ab.ts never does. This checkout's build alone, or against another, alternating.
 *   npx tsx bench/groups-ab.ts [G=2] [rounds=4]
 * HEADWATER_BENCH_BASELINE=<checkout>: the other build (built, with its own node_modules).
 */
import { latencies, median, paced, pct, postJson, stopStreamSystems, streamSystems } from "./event-probes.js";

const group = Number(process.argv[2] ?? 2);
const rounds = Number(process.argv[3] ?? 4);
const systems = (await streamSystems()).map((s) => ({ ...s, p50: [] as number[], p90: [] as number[], p99: [] as number[] }));
for (const s of systems) {
  // The paced path warms up too (see events-relay.bench.ts), not counted.
  const warm = await paced(200, 10, (i) => postJson(s.url, JSON.stringify({ i: 900_000 + i })));
  await latencies(s.taps, warm, warm.length, 900_000);
}
for (let round = 1; round <= rounds; round++) {
  const line: string[] = [];
  for (const s of round % 2 ? systems : [...systems].reverse()) {
    const first = round * 1_000_000;
    const groupSent = await paced(200 / group, 2.5, (g) =>
      Promise.all(Array.from({ length: group }, (_, k) => postJson(s.url, JSON.stringify({ i: first + g * group + k })))),
    );
    const sentAt = groupSent.flatMap((t) => Array.from({ length: group }, () => t));
    const l = await latencies(s.taps, sentAt, sentAt.length, first);
    s.p50.push(pct(l, 0.5));
    s.p90.push(pct(l, 0.9));
    s.p99.push(pct(l, 0.99));
    line.push(`${s.name} ${pct(l, 0.5).toFixed(2)} / ${pct(l, 0.9).toFixed(2)} / ${pct(l, 0.99).toFixed(2)} ms${l.length < sentAt.length ? ` (${l.length}/${sentAt.length} arrived)` : ""}`);
  }
  console.log(`groups of ${group}, round ${round}, p50 / p90 / p99: ${line.join(", ")}`);
}
for (const s of systems) {
  console.log(`${s.name}: median of rounds p50 ${median(s.p50).toFixed(2)} ms, p90 ${median(s.p90).toFixed(2)} ms, p99 ${median(s.p99).toFixed(2)} ms`);
}
await stopStreamSystems(systems);
