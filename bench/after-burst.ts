/**
 * Endpoint request → SSE message at 200 ev/s before and after a burst on another source of the
 * same server, round by round: what a steady stream sees while the server catches up with a
 * burst (its runs, then the search index of its events).
 *   npx tsx bench/after-burst.ts [burst seconds=10] [rounds after=6]
 * The burst is wrk -t2 -c32 (as the ingest bench); its backlog is run to the end before the
 * rounds after it start, so what remains is the search index's catch-up.
 */
import fs from "node:fs";
import {
  agent,
  ingestRate,
  pct,
  relaySourceOn,
  spawnBenchServer,
  streamRound,
  untilQueueEmpty,
  untilStored,
  warmUp,
  workerTaps,
} from "./event-probes.js";

const burstSeconds = Number(process.argv[2] ?? 10);
const roundsAfter = Number(process.argv[3] ?? 6);

const hw = await spawnBenchServer("after-burst");
const burstSource = await relaySourceOn(hw.client, "burst");
const stream = await relaySourceOn(hw.client, "stream");
await warmUp(hw.client, hw.server.origin, await relaySourceOn(hw.client, "warm-up"));
const taps = await workerTaps([`${hw.server.origin}/sources/${stream}/sse`], hw.apiKey);
/** When the burst's runs ended (performance.now()), once they have. */
let burstEnd = 0;

async function round(label: string, n: number): Promise<void> {
  const first = n * 1_000_000;
  const t0 = performance.now();
  const { latencies: l } = await streamRound(`${hw.server.origin}/e/${stream}`, taps, {
    perSecond: 200,
    seconds: 2.5,
    first,
  });
  const at = ((t0 - burstEnd) / 1000).toFixed(0);
  console.log(
    `${label}${burstEnd ? ` (+${at} s)` : ""}: p50 ${pct(l, 0.5).toFixed(2)}, p90 ${pct(l, 0.9).toFixed(2)}, p99 ${pct(l, 0.99).toFixed(2)}, max ${l[l.length - 1]!.toFixed(2)} ms`,
  );
}

// The stream's source loads its component in the sandbox with its first events: not measured.
await streamRound(`${hw.server.origin}/e/${stream}`, taps, { perSecond: 200, seconds: 0.25, first: 0 });
await round("before the burst", 1);
const burst = await ingestRate(`${hw.server.origin}/e/${burstSource}`, burstSeconds);
await untilStored(hw.client, burstSource, burst.perSecond * burstSeconds * 0.99);
await untilQueueEmpty(hw.server.origin, hw.apiKey);
burstEnd = performance.now();
console.log(`burst: ${Math.round(burst.perSecond * burstSeconds)} events in ${burstSeconds} s, all run`);
for (let n = 2; n < 2 + roundsAfter; n++) await round(`after, round ${n - 1}`, n);
await taps.close();
agent.destroy();
await hw.server.stop();
fs.rmSync(hw.dataDir, { recursive: true, force: true });
