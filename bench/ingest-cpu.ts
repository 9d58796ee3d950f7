/**
 * Server CPU per acknowledged endpoint request, round by round, next to bare node:http: the ingest
 * case of events-relay.bench.ts without its SSE case and relay, for measuring one change.
 *   npx tsx bench/ingest-cpu.ts [rounds=3] [seconds=5]
 * HEADWATER_BENCH_BASELINE=<checkout>: that checkout's build in the same rounds. RATE=<n>: the
 * bench's own client at n requests a second instead of wrk (both builds then batch alike).
 * PROF=<dir>: CPU profiles of the servers, and <dir>/windows.json, the load windows (µs of the
 * monotonic clock the profiles' timestamps use), to cut the profiles to them.
 * Per system: srv-during (server CPU over the window / acknowledged), srv-total (until its backlog
 * is stored), all (with its sandbox workers).
 */
import fs from "node:fs";
import { ingestRate as wrkRate, paced, postJson, processCpuSeconds, relaySourceOn, spawnBare, spawnBenchServer, untilStored } from "./event-probes.js";
const RATE = Number(process.env.RATE ?? 0);
async function ingestRate(url: string, secs: number): Promise<{ perSecond: number; failed: number }> {
  if (!RATE) return wrkRate(url, secs);
  const pending: Array<Promise<number>> = [];
  await paced(RATE, secs, (i) => {
    const p = postJson(url, JSON.stringify({ i, pad: "x".repeat(64) }));
    pending.push(p);
    return p;
  });
  const codes = await Promise.all(pending);
  const ok = codes.filter((c) => c === 200).length;
  return { perSecond: ok / secs, failed: codes.length - ok };
}

const TICK = 100; // USER_HZ
function cpuOf(pid: number): number {
  const s = fs.readFileSync(`/proc/${pid}/stat`, "utf8");
  const f = s.slice(s.lastIndexOf(")") + 2).split(" ");
  return (Number(f[11]) + Number(f[12]) + Number(f[13]) + Number(f[14])) / TICK;
}
function descendants(pid: number): number[] {
  const kids = new Map<number, number[]>();
  for (const d of fs.readdirSync("/proc")) {
    if (!/^\d+$/.test(d)) continue;
    try {
      const s = fs.readFileSync(`/proc/${d}/stat`, "utf8");
      const ppid = Number(s.slice(s.lastIndexOf(")") + 2).split(" ")[1]);
      (kids.get(ppid) ?? kids.set(ppid, []).get(ppid)!).push(Number(d));
    } catch {
      /* gone */
    }
  }
  const out: number[] = [];
  const walk = (p: number) => {
    for (const k of kids.get(p) ?? []) {
      out.push(k);
      walk(k);
    }
  };
  walk(pid);
  return out;
}
function groupCpu(pid: number): number {
  let t = cpuOf(pid);
  for (const d of descendants(pid)) {
    try {
      t += cpuOf(d);
    } catch {
      /* gone */
    }
  }
  return t;
}

const rounds = Number(process.argv[2] ?? 3);
const seconds = Number(process.argv[3] ?? 5);

async function start(name: string, root?: string) {
  const { server, client } = await spawnBenchServer(name, { ...(root ? { root } : {}), profDir: process.env.PROF });
  return { name, server, client, ingest: await relaySourceOn(client, "ingest"), acked: 0 };
}
type Hw = Awaited<ReturnType<typeof start>>;
const stored = (hw: Hw, count: number) => untilStored(hw.client, hw.ingest, count);

const bare = await spawnBare();
const systems = [await start("new")];
if (process.env.HEADWATER_BENCH_BASELINE)
  systems.push(await start("base", process.env.HEADWATER_BENCH_BASELINE));
// Warm-up
for (const hw of systems) {
  const r = await ingestRate(`${hw.server.origin}/e/${hw.ingest}`, 3);
  hw.acked += Math.round(r.perSecond * 3);
  await stored(hw, hw.acked * 0.99);
}
const rows: Record<string, string[]> = {};
const windows: Record<string, Array<[number, number]>> = {};
for (let round = 1; round <= rounds; round++) {
  const c0 = processCpuSeconds(bare.child.pid!);
  const b = await ingestRate(`${bare.origin}/`, seconds);
  const bareCpu = (processCpuSeconds(bare.child.pid!) - c0) / (b.perSecond * seconds);
  const line = [`bare ${b.perSecond.toFixed(0)}/s ${(bareCpu * 1e6).toFixed(1)}µs`];
  for (const hw of systems) {
    const pid = hw.server.child.pid!;
    const s0 = processCpuSeconds(pid);
    const g0 = groupCpu(pid);
    const w0 = Number(process.hrtime.bigint() / 1000n);
    const h = await ingestRate(`${hw.server.origin}/e/${hw.ingest}`, seconds);
    (windows[hw.name] ??= []).push([w0, Number(process.hrtime.bigint() / 1000n)]);
    const n = h.perSecond * seconds;
    const s1 = processCpuSeconds(pid);
    hw.acked += Math.round(n);
    await stored(hw, hw.acked * 0.995);
    const s2 = processCpuSeconds(pid);
    const g2 = groupCpu(pid);
    const r = `${hw.name} ${h.perSecond.toFixed(0)}/s (${(h.perSecond / b.perSecond).toFixed(3)}) srv-during ${(((s1 - s0) / n) * 1e6).toFixed(1)}µs srv-total ${(((s2 - s0) / n) * 1e6).toFixed(1)}µs all ${(((g2 - g0) / n) * 1e6).toFixed(1)}µs`;
    line.push(r);
    (rows[hw.name] ??= []).push(r);
  }
  console.log(
    `round ${round} load ${fs.readFileSync("/proc/loadavg", "utf8").split(" ").slice(0, 3).join(" ")}: ${line.join(" | ")}`,
  );
}
bare.child.kill();
if (process.env.PROF) fs.writeFileSync(`${process.env.PROF}/windows.json`, JSON.stringify(windows));
for (const hw of systems) await hw.server.stop();
process.exit(0);
