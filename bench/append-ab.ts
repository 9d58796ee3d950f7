/**
 * One event's append through the event store (its write transaction and commit included), this
 * checkout against another in the same process, alternating append by append: for measuring a
 * change to the embedded database's hot path without HTTP, workers or streams in the way.
 *   npx tsx bench/append-ab.ts [gapMs=1] [appends=3000]
 * HEADWATER_BENCH_BASELINE=<checkout>: the other checkout (its sources are imported by tsx).
 * gapMs 1 leaves caches cold between appends, as a steady stream does; 0 runs them back to back.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";

const gapMs = Number(process.argv[2] ?? 1);
const appends = Number(process.argv[3] ?? 3000);
const here = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const roots: Array<[string, string]> = [["this build", here]];
if (process.env.HEADWATER_BENCH_BASELINE)
  roots.push(["baseline", path.resolve(process.env.HEADWATER_BENCH_BASELINE)]);

interface System {
  name: string;
  append: () => Promise<unknown>;
  close: () => Promise<void>;
  times: number[];
}

const systems: System[] = [];
for (const [name, root] of roots) {
  const { openDb } = await import(path.join(root, "server/store/db.ts"));
  const { createEventStore } = await import(path.join(root, "server/events/event-store.ts"));
  const { LocalEventBus } = await import(path.join(root, "server/events/bus.ts"));
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "hw-append-"));
  const opened = await openDb({ dataDir: dir });
  const store = createEventStore({
    db: opened.db,
    bus: new LocalEventBus(),
    retention: 1_000_000,
    writes: opened.writes,
  });
  let i = 0;
  systems.push({
    name,
    times: [],
    append: () =>
      store.append([
        {
          emitterId: "dc_bench",
          ownerId: "u_bench",
          channel: "",
          event: { i: i++, body: { hello: "world" } },
          meta: {},
        },
      ]),
    close: async () => {
      await store.close();
      await opened.close();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  });
}

for (let r = 0; r < appends; r++) {
  for (const s of r % 2 ? [...systems].reverse() : systems) {
    const t0 = performance.now();
    await s.append();
    s.times.push(performance.now() - t0);
    if (gapMs) await new Promise((resolve) => setTimeout(resolve, gapMs));
  }
}
for (const s of systems) {
  s.times.sort((a, b) => a - b);
  const q = (p: number) => (s.times[Math.floor(p * s.times.length)]! * 1000).toFixed(1);
  console.log(
    `${s.name.padEnd(10)} append µs: p50 ${q(0.5)}, p90 ${q(0.9)}, p99 ${q(0.99)} (${appends}, ${gapMs} ms apart)`,
  );
}
// Nothing else keeps the loop alive while the databases close (their checkpoint threads are unref'd).
const alive = setInterval(() => undefined, 1000);
for (const s of systems) await s.close();
clearInterval(alive);
