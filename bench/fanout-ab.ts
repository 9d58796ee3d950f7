/**
 * The 1,000 ev/s × 100 streams case of events.bench.ts ("endpoint → SSE"), alone, for measuring
 * one change: 10 sources with 10 streams each, 1,000 requests a second spread over them, 5 s
 * windows; each window's p50 / p99 (request sent → SSE message read, every stream counted).
 *   npx tsx bench/fanout-ab.ts [rounds=3]
 * HEADWATER_BENCH_BASELINE=<checkout>: that checkout's build too, the two alternating window by
 * window (which of them goes first alternates too).
 */
import { SQLite } from "../shared/sqlite-native.js";
import { paced, pct, postJson, relaySourceOn, spawnBenchServer, untilStored, warmUp, workerTaps } from "./event-probes.js";

const rounds = Number(process.argv[2] ?? 3);
/** PROF=<dir>: CPU profiles of the servers, and <dir>/windows.json, the measured windows (µs, the profiles' clock). */
const windows: Record<string, Array<[number, number]>> = {};

async function start(name: string, root?: string) {
  const hw = await spawnBenchServer(name.replace(/ /g, "-"), { ...(root ? { root } : {}), profDir: process.env.PROF });
  await warmUp(hw.client, hw.server.origin, await relaySourceOn(hw.client, "warm"));
  const sources: string[] = [];
  for (let k = 0; k < 10; k++) sources.push(await relaySourceOn(hw.client, `lat${k}`));
  const taps = await workerTaps(
    sources.flatMap((id) => Array.from({ length: 10 }, () => `${hw.server.origin}/sources/${id}/sse`)),
    hw.apiKey,
  );
  // Steady state: two unmeasured seconds at the same rate.
  const refused: number[] = [];
  await paced(1000, 2, async (w) => {
    const status = await postJson(`${hw.server.origin}/e/${sources[w % sources.length]}`, JSON.stringify({ w }));
    if (status !== 200) refused.push(status);
  });
  if (refused.length > 0) console.log(`  · ${name}: ${refused.length} of 2,000 requests refused (${refused.join(", ")})`);
  for (const id of sources) await untilStored(hw.client, id, 200 - refused.length, 60_000).catch(async (e: unknown) => {
    const db = new SQLite(`${hw.dataDir}/headwater.db`, { readonly: true });
    console.log(String(e), JSON.stringify(db.prepare("select id, attempts, run_after, created_ms, length(payload) n from jobs where target_id = ?").all(id)), JSON.stringify(db.prepare("select * from job_targets where target_id = ?").all(id)));
    throw e;
  });
  return { name, hw, sources, taps, p99s: [] as number[] };
}

const systems = [await start("this build")];
if (process.env.HEADWATER_BENCH_BASELINE) systems.push(await start("baseline", process.env.HEADWATER_BENCH_BASELINE));

for (let round = 1; round <= rounds; round++) {
  const order = round % 2 === 1 ? systems : [...systems].reverse();
  const line: string[] = [];
  for (const s of order) {
    const first = round * 1_000_000;
    const origin = s.hw.server.origin;
    const w0 = Number(process.hrtime.bigint() / 1000n);
    const sentAt = await paced(1000, 5, (i) => postJson(`${origin}/e/${s.sources[i % s.sources.length]}`, JSON.stringify({ i: first + i })));
    (windows[s.name.replace(/ /g, "-")] ??= []).push([w0, Number(process.hrtime.bigint() / 1000n)]);
    const expected = sentAt.length * 10;
    const deadline = performance.now() + 60_000;
    let latencies: number[] = [];
    while (performance.now() < deadline) {
      const arrivals = await s.taps.collect();
      latencies = [];
      for (let k = 0; k < arrivals.length; k += 2) {
        const i = arrivals[k]! - first;
        if (i >= 0 && i < sentAt.length) latencies.push(arrivals[k + 1]! - sentAt[i]!);
      }
      if (latencies.length >= expected) break;
      await new Promise((r) => setTimeout(r, 200));
    }
    latencies.sort((a, b) => a - b);
    s.p99s.push(pct(latencies, 0.99));
    line.push(`${s.name} p50 ${pct(latencies, 0.5).toFixed(2)} / p99 ${pct(latencies, 0.99).toFixed(2)} ms (${latencies.length}/${expected})`);
  }
  console.log(`round ${round}: ${line.join(" | ")}`);
}
if (process.env.PROF) (await import("node:fs")).writeFileSync(`${process.env.PROF}/windows.json`, JSON.stringify(windows));
for (const s of systems) {
  console.log(`${s.name}: windows with p99 <= 10 ms: ${s.p99s.filter((p) => p <= 10).length} of ${s.p99s.length}`);
  await s.taps.close();
  await s.hw.server.stop();
}
process.exit(0);
