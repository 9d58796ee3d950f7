// A/B of the queue's drain of 1,000 one-job targets: node qab <root>
import fs from "node:fs";
async function main() {
  const root = process.argv[2];
  const { openDb } = await import(`${root}/server/store/db.ts`);
  const { insertJobs, JobsRepo } = await import(`${root}/server/store/repos/jobs.ts`);
  const { DurableQueue } = await import(`${root}/server/runtime/queue.ts`);
  const dataDir = fs.mkdtempSync("/tmp/lag/db-");
  const store = await openDb({ dataDir });
  const repo = new JobsRepo(store.db);
  const q = new DurableQueue(repo, { concurrency: 32, leaseMs: 30000, releaseLeasesAtStart: true });
  let slots = 4; const waiters: Array<() => void> = [];
  const acquire = async () => { if (slots > 0) { slots--; return; } await new Promise<void>((r) => waiters.push(r)); };
  const release = () => { const w = waiters.shift(); if (w) w(); else slots++; };
  const t0 = Date.now(); const starts: number[] = [];
  q.registerBatchHandler("p_", async (jobs: any[]) => {
    await acquire();
    starts.push(Date.now() - t0);
    const until = Date.now() + 2; while (Date.now() < until) {} // 2 ms of CPU, as a run's share of the loop
    await new Promise((r) => setTimeout(r, 2));
    release();
    await store.db.deleteFrom("jobs").where("id", "in", jobs.map((j) => j.id)).execute();
    return { ran: jobs.length, committed: true };
  }, 16);
  await q.start();
  const N = 1000;
  for (let b = 0; b < N; b += 250) {
    const ids = Array.from({ length: 250 }, (_, i) => `p_${String(b + i).padStart(5, "0")}`);
    await store.db.transaction().execute((trx: any) => insertJobs(trx, ids.map((targetId) => ({ targetId, ownerId: "u", trigger: "schedule", payload: "{}" }))));
    q.wake(ids);
  }
  while (starts.length < N) await new Promise((r) => setTimeout(r, 5));
  await q.stop();
  starts.sort((a, b) => a - b);
  console.log(root.padEnd(20), "first", starts[0], "p50", starts[N / 2], "p99", starts[Math.floor(N * 0.99)], "last", starts[N - 1]);
  process.exit(0);
}
main();
