/**
 * Events and delivery (issue 4), with the embedded database:
 * - HTTP-endpoint ingest: POSTs acknowledged per second by a source's endpoint, against the
 *   same load on a bare node:http handler (both servers in child processes, same client);
 * - latency from an endpoint request to the SSE message, p50 / p99, at 1,000 events/s with
 *   100 streams open;
 * - GET event_summaries with 100,000 retained events;
 * - fanning one event out to 100 listening workflows (until all 100 have run and emitted).
 * Cases that measure a whole scenario print their own figures (lines starting with "  ·").
 */
import fs from "node:fs";
import { createClient } from "../shared/client/index.js";
import { relaySource, step } from "../test/delivery/helpers.js";
import { uniqueKey } from "../test/support/fixtures.js";
import { randomKey, spawnServer, startServer, tempDataDir, type SpawnedServer } from "../test/support/server.js";
import { defineBench } from "./harness.js";
import { agent, load, paced, pct, postJson, spawnBare, untilStored, warmUp, workerTaps, type WorkerTaps } from "./event-probes.js";
import { openDb } from "../server/store/db.js";
import { LocalEventBus } from "../server/events/bus.js";
import { createEventStore } from "../server/events/event-store.js";
import { DurableQueue } from "../server/runtime/queue.js";
import { JobsRepo } from "../server/store/repos/jobs.js";
import { upsertSubscription } from "../server/store/repos/subscriptions.js";
import type { InvocationJob } from "../server/services.js";

/**
 * Waits until the `expected` arrivals of events `first`.. (or 60 s), then prints and returns
 * p50 / p99 of arrival - send. `sentAt[k]` is when event `first + k` was sent.
 */
async function report(taps: WorkerTaps, sentAt: number[], expected: number, what: string, first = 0): Promise<{ p50: number; p99: number }> {
  const deadline = performance.now() + 60_000;
  const latencies: number[] = [];
  const measure = (arrivals: number[]) => {
    latencies.length = 0;
    for (let k = 0; k < arrivals.length; k += 2) {
      const i = arrivals[k]! - first;
      if (i >= 0 && i < sentAt.length) latencies.push(arrivals[k + 1]! - sentAt[i]!);
    }
  };
  measure(await taps.collect());
  while (latencies.length < expected && performance.now() < deadline) {
    await new Promise((r) => setTimeout(r, 200));
    measure(await taps.collect());
  }
  latencies.sort((a, b) => a - b);
  const result = { p50: pct(latencies, 0.5), p99: pct(latencies, 0.99) };
  console.log(
    `  · ${what}: ${sentAt.length} events, ${latencies.length}/${expected} SSE messages; ` +
      `latency p50 ${result.p50.toFixed(1)} ms, p99 ${result.p99.toFixed(1)} ms, max ${latencies.at(-1)?.toFixed(1)} ms`,
  );
  return result;
}

/**
 * CPU time (ms) a process has used so far, from /proc (Linux); undefined elsewhere. The machine's
 * speed drifts (the same build and load took 29 % of a core for the bench's readers in one
 * phase and 40 % in another), so the SSE case prints how busy each side was.
 */
function cpuMs(pid: number | undefined): number | undefined {
  if (!pid) return undefined;
  try {
    const fields = fs.readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ");
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100; // utime + stime, in 1/100 s
  } catch {
    return undefined;
  }
}

/** "server 85 %, bench 30 % of a core" over a window that started at `from`. */
function busy(from: { at: number; server?: number; bench: number }, serverPid: number | undefined): string {
  const wall = performance.now() - from.at;
  const server = cpuMs(serverPid);
  const bench = process.cpuUsage();
  const benchMs = (bench.user + bench.system) / 1000 - from.bench;
  const pct = (ms: number) => `${Math.round((100 * ms) / wall)} %`;
  return `CPU: server ${server === undefined || from.server === undefined ? "?" : pct(server - from.server)}, bench ${pct(benchMs)} of a core`;
}

function startBusy(serverPid: number | undefined) {
  const u = process.cpuUsage();
  return { at: performance.now(), server: cpuMs(serverPid), bench: (u.user + u.system) / 1000 };
}

export default defineBench("events", async () => {
  // -- child servers: Headwater (embedded SQLite) and a bare node:http handler ----------------
  const dataDir = tempDataDir();
  const apiKey = randomKey();
  const hw: SpawnedServer = await spawnServer({ dataDir, apiKey, env: { HEADWATER_LOG_LEVEL: "error", HEADWATER_EVENT_RETENTION: "1000000" } });
  const bare = await spawnBare();
  const client = createClient({ baseUrl: hw.baseUrl, apiKey });
  const ingestSource = await client.createSource({ component_code: relaySource(uniqueKey("bench")), name: "ingest" });
  const ingestUrl = `${hw.origin}/e/${ingestSource.id}`;
  // Warm-up (as the bare server gets one): the same load on another source, until stored,
  // so the measured run meets compiled code and an empty queue.
  const warmSource = await client.createSource({ component_code: relaySource(uniqueKey("warm")), name: "warm-up" });
  // Four bursts: the server's JIT keeps improving over its first ~8,000 requests (measured with
  // a CPU profile: the fourth burst is acknowledged about twice as fast as the second).
  await warmUp(client, hw.origin, warmSource.id);

  // -- in-process server for the read and fan-out cases ---------------------------------------
  const local = await startServer({ env: { HEADWATER_EVENT_RETENTION: "100000" } });
  const u = await local.newUser("bench");
  const big = (await u.client.createSource({ component_code: relaySource(uniqueKey("big")), name: "big" })).id;
  const store = local.server.services.events.store;
  for (let b = 0; b < 100; b++) {
    await store.append(Array.from({ length: 1000 }, (_, i) => ({ emitterId: big, ownerId: u.user.id, channel: "", event: { i: b * 1000 + i, text: "retained event" } })));
  }
  const middle = (await u.client.listSourceEvents(big, { limit: 1, after: (await u.client.listSourceEvents(big, { limit: 100 })).page_info.end_cursor! })).data[0]!.id;
  const deep = (await u.client.listSourceEvents(big, { limit: 100, after: middle })).page_info.end_cursor!;

  const fanSource = (await u.client.createSource({ component_code: relaySource(uniqueKey("fan")), name: "fan" })).id;
  const listeners: string[] = [];
  for (let i = 0; i < 100; i++) {
    const wf = await u.client.createWorkflow({ name: `l${i}`, steps: [{ code: step("$.send.emit(1);") }] });
    await u.client.createSubscription({ emitter_id: fanSource, listener_id: wf.id });
    listeners.push(wf.id);
  }
  const bus = local.server.services.events.bus;

  // -- routing only: append → 100 jobs durably in the runtime's queue table (not run) ---------
  const routeDir = tempDataDir();
  const routeDb = await openDb({ dataDir: routeDir });
  const jobsQueue = new DurableQueue(new JobsRepo(routeDb.db), { concurrency: 1, leaseMs: 60_000 });
  let onQueued: ((n: number) => void) | undefined;
  // Routing inserts the listeners' jobs in the append's transaction: counted as they are inserted.
  const countingQueue = {
    enqueue: (jobs: InvocationJob[]) => jobsQueue.enqueue(jobs),
    enqueueIn: async (trx: Parameters<DurableQueue["enqueueIn"]>[0], jobs: InvocationJob[]) => {
      await jobsQueue.enqueueIn(trx, jobs);
      onQueued?.(jobs.length);
    },
    wake: () => undefined,
  };
  const routeStore = createEventStore({ db: routeDb.db, bus: new LocalEventBus(), retention: 100 });
  routeStore.routeTo(countingQueue);
  for (let i = 0; i < 100; i++) {
    await upsertSubscription(routeDb.db, { id: `sub_r${i}`, owner_id: "u_r", emitter_id: "dc_r", listener_id: `p_r${i}`, channel: "", created_at: 0 });
  }

  return {
    cases: [
      { name: "bare node:http, 2000 POSTs (32 in flight)", run: () => load(`${bare.origin}/`, 2000, 32), iterations: 5, warmup: 1 },
      // One run on an empty queue (after the warm-up): later runs would compete with the backlog
      // the first one left.
      { name: "source endpoint, 2000 POSTs (32 in flight)", run: () => load(ingestUrl, 2000, 32), iterations: 1, warmup: 0 },
      {
        name: "… until those 2000 are stored events",
        iterations: 1,
        warmup: 0,
        run: async () => {
          const t0 = performance.now();
          const total = await untilStored(client, ingestSource.id, 2000);
          console.log(`  · backlog drained ${(performance.now() - t0).toFixed(0)} ms after the last acknowledgement (${total} events)`);
        },
      },
      { name: "event_summaries, 100k retained (first 10)", run: () => u.client.listSourceEvents(big) },
      { name: "event_summaries, 100k retained (100)", run: () => u.client.listSourceEvents(big, { limit: 100 }), iterations: 100 },
      { name: "event_summaries, 100k retained (deep cursor)", run: () => u.client.listSourceEvents(big, { after: deep }) },
      { name: "event_summaries, 100k retained (before)", run: () => u.client.listSourceEvents(big, { before: deep }) },
      {
        name: "route one event to 100 listeners (jobs queued)",
        iterations: 50,
        warmup: 5,
        run: async () => {
          let queued = 0;
          const done = new Promise<void>((resolve) => {
            onQueued = (n) => {
              queued += n;
              if (queued >= 100) resolve();
            };
          });
          await routeStore.append([{ emitterId: "dc_r", ownerId: "u_r", channel: "", event: { fan: true } }]);
          await done;
        },
      },
      {
        name: "fan one event out to 100 workflows",
        iterations: 10,
        warmup: 2,
        run: async () => {
          const seen = new Set<string>();
          let done!: () => void;
          const all = new Promise<void>((r) => (done = r));
          const offs = listeners.map((id) =>
            bus.subscribe(id, () => {
              seen.add(id);
              if (seen.size === listeners.length) done();
            }),
          );
          await store.append([{ emitterId: fanSource, ownerId: u.user.id, channel: "", event: { fan: true } }]);
          await all;
          for (const off of offs) off();
        },
      },
      {
        name: "append → SSE (events path), 1000 ev/s, 100 streams, 5 s",
        iterations: 1,
        warmup: 0,
        run: async () => {
          const sources: string[] = [];
          for (let k = 0; k < 10; k++) sources.push((await u.client.createSource({ component_code: relaySource(uniqueKey("ep")), name: `ep${k}` })).id);
          const taps = await workerTaps(sources.flatMap((id) => Array.from({ length: 10 }, () => `${local.origin}/sources/${id}/sse`)), u.key);
          const sentAt = await paced(1000, 5, (i) =>
            store.append([{ emitterId: sources[i % sources.length]!, ownerId: u.user.id, channel: "", event: { i } }]),
          );
          await report(taps, sentAt, sentAt.length * 10, "appended in the server process, read in a worker thread");
          await taps.close();
        },
      },
      {
        // Three windows: on this machine one 5 s window can be 2x another for the same build (a
        // slow phase of the machine, a stall of all processes), so each is shown and the median.
        name: "endpoint → SSE, 1000 ev/s, 100 streams, 3 × 5 s",
        iterations: 1,
        warmup: 0,
        run: async () => {
          // Ten sources with ten streams each: the runtime runs one job at a time per source.
          const sources: string[] = [];
          for (let k = 0; k < 10; k++) sources.push((await client.createSource({ component_code: relaySource(uniqueKey("lat")), name: `lat${k}` })).id);
          // Steady state, as the scenario says: the 100 streams open, then two unmeasured seconds at
          // the same rate (the sandbox pool grows to its size, code is compiled and loaded, the
          // fan-out to the streams is warm). Taps count only `i`.
          const taps = await workerTaps(sources.flatMap((id) => Array.from({ length: 10 }, () => `${hw.origin}/sources/${id}/sse`)), apiKey);
          await paced(1000, 2, (w) => postJson(`${hw.origin}/e/${sources[w % sources.length]}`, JSON.stringify({ w })));
          for (const id of sources) await untilStored(client, id, 200);
          const windows: Array<{ p50: number; p99: number }> = [];
          for (let w = 1; w <= 3; w++) {
            const first = w * 1_000_000;
            const window = startBusy(hw.child.pid);
            const sentAt = await paced(1000, 5, (i) => postJson(`${hw.origin}/e/${sources[i % sources.length]}`, JSON.stringify({ i: first + i })));
            const load = busy(window, hw.child.pid);
            windows.push(await report(taps, sentAt, sentAt.length * 10, `window ${w}: HTTP endpoint of a child server, through the runtime`, first));
            console.log(`  · while sending: ${load} (the server's sandbox workers not counted)`);
          }
          const median = (xs: number[]) => xs.sort((a, b) => a - b)[1]!;
          console.log(`  · median of the 3 windows: p50 ${median(windows.map((x) => x.p50)).toFixed(1)} ms, p99 ${median(windows.map((x) => x.p99)).toFixed(1)} ms`);
          await taps.close();
        },
      },
    ],
    ratios: [
      ["bare node:http, 2000 POSTs (32 in flight)", "source endpoint, 2000 POSTs (32 in flight)"],
      ["event_summaries, 100k retained (deep cursor)", "event_summaries, 100k retained (first 10)"],
    ],
    teardown: async () => {
      await routeStore.close();
      await routeDb.close();
      fs.rmSync(routeDir, { recursive: true, force: true });
      agent.destroy();
      bare.child.kill();
      await hw.stop();
      await local.stop();
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
});
