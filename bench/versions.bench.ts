/**
 * Building workflows (issue 47), run by `npm run bench versions`, on the built server in a
 * process of its own (SQLite), each pair measured interleaved in the same run:
 * 1. a test run of a two-step workflow (`POST /workflows/{id}/test`, answered when the run has
 *    ended and is recorded) against a production run of the same steps, endpoint request →
 *    `$.respond` (`http_response: "workflow"`, step b responds), as the runs bench measures it.
 *    Target: p50 ≤ 1.2 ×.
 * 2. runs per second, HTTP → the runs bench's two-step workflow, 1,000 requests a window, 32 in
 *    flight, until the backlog has run: the workflow with 1,000 versions stored against the same
 *    workflow with 1 version; and, with HEADWATER_BENCH_BASELINE (the build before versions,
 *    1670c7e; skipped without it), each against the same workflow on that build (made by the
 *    same 999 updates). Windows alternate who goes first, each after a rest; a ratio is the median
 *    of the windows' pairs. Target ≥ 0.95 of the baseline, with 1,000 versions too.
 *       git worktree add /tmp/hw-baseline 1670c7e
 *       ln -s "$PWD/node_modules" /tmp/hw-baseline/node_modules
 *       (cd /tmp/hw-baseline && node scripts/build.mjs)
 *       HEADWATER_BENCH_BASELINE=/tmp/hw-baseline npm run bench versions
 * Knobs: HEADWATER_BENCH_WINDOWS (windows in 2, default 7), HEADWATER_BENCH_ROUNDS (1 runs 5 ×
 * that many rounds, default 60). Every ratio is printed once, named with its statistic.
 */
import fs from "node:fs";
import http from "node:http";
import { SQLite, type SqliteStatement } from "../shared/sqlite-native.js";
import { step } from "../test/delivery/helpers.js";
import { defineBench, type BenchCase } from "./harness.js";
import { TWO_STEPS, workflowRuns } from "./workflow-probes.js";
import { agent, load, median, pct, postJson, spawnBenchServer, type BenchServer } from "./event-probes.js";

const WINDOWS = Number(process.env.HEADWATER_BENCH_WINDOWS ?? 7);
const ROUNDS = Number(process.env.HEADWATER_BENCH_ROUNDS ?? 60);
const VERSIONS = 1000;
const RUNS = 1000;
const IN_FLIGHT = 32;
const REST_MS = 1000;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const sorted = (xs: number[]) => [...xs].sort((a, b) => a - b);

/** The runs bench's two steps, the same code in each workflow: a comment says which update made it. */
const revision = (n: number) => TWO_STEPS.map((s) => ({ ...s, code: `// revision ${n}\n${s.code}` }));

/** Step a exports and returns; step b answers the caller with `$.respond`, then returns. */
const RESPONDING = [
  TWO_STEPS[0]!,
  {
    name: "b",
    code: step(`await $.respond({ status: 200, body: { ok: true, x: steps.a.x } }); return "b";`),
  },
];

/** A JSON call with the server's admin key, over the bench's keep-alive agent; its status. */
function call(
  hw: BenchServer,
  method: string,
  path: string,
  body?: unknown,
): Promise<{ status: number; text: string }> {
  const payload = body === undefined ? undefined : JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const req = http.request(
      `${hw.server.baseUrl}${path}`,
      {
        method,
        agent,
        headers: {
          authorization: `Bearer ${hw.apiKey}`,
          ...(payload === undefined
            ? {}
            : { "content-type": "application/json", "content-length": Buffer.byteLength(payload) }),
        },
      },
      (res) => {
        let text = "";
        res.setEncoding("utf8");
        res.on("data", (d: string) => (text += d));
        res.on("end", () => resolve({ status: res.statusCode ?? 0, text }));
      },
    );
    req.on("error", reject);
    req.setTimeout(60_000, () => req.destroy(new Error(`no answer to ${method} ${path} within 60 s`)));
    req.end(payload);
  });
}

async function made<T>(hw: BenchServer, method: string, path: string, body?: unknown): Promise<T> {
  const r = await call(hw, method, path, body);
  if (r.status >= 300) throw new Error(`${method} ${path}: ${r.status} ${r.text.slice(0, 300)}`);
  return (JSON.parse(r.text) as { data: T }).data;
}

interface System {
  name: string;
  hw: BenchServer;
  /** Endpoint URLs: the workflow with one version, and the one with VERSIONS. */
  one: string;
  many: string;
  manyId: string;
  jobs: SqliteStatement;
  rates: { one: number[]; many: number[] };
  close: () => Promise<void>;
}

async function system(name: string, root: string | undefined): Promise<System> {
  const hw = await spawnBenchServer(name.replace(/ /g, "-"), root ? { root } : {});
  const one = await made<{ id: string; endpoint_url: string }>(hw, "POST", "/workflows", {
    name: "one version",
    steps: revision(VERSIONS - 1),
  });
  const many = await made<{ id: string; endpoint_url: string }>(hw, "POST", "/workflows", {
    name: "many versions",
    steps: revision(0),
  });
  // 999 updates, each a change of its steps: on a build with versions, 1,000 versions stored.
  for (let n = 1; n < VERSIONS; n++) await made(hw, "PUT", `/workflows/${many.id}`, { steps: revision(n) });
  const db = new SQLite(`${hw.dataDir}/headwater.db`, { readonly: true });
  return {
    name,
    hw,
    one: one.endpoint_url,
    many: many.endpoint_url,
    manyId: many.id,
    jobs: db.prepare("select count(*) as n from jobs"),
    rates: { one: [], many: [] },
    close: async () => {
      db.close();
      await hw.server.stop();
      fs.rmSync(hw.dataDir, { recursive: true, force: true });
    },
  };
}

/** Runs per second of one window: `RUNS` requests, IN_FLIGHT at once, until no job is left (see runs.bench.ts). */
async function runsPerSecond(s: System, url: string, requests = RUNS): Promise<number> {
  const before = await workflowRuns(s.hw);
  const t0 = performance.now();
  const ok = await load(url, requests, IN_FLIGHT);
  if (ok < requests) throw new Error(`${s.name}: ${requests - ok} of ${requests} requests refused`);
  const deadline = performance.now() + 120_000;
  while ((s.jobs.get() as { n: number }).n > 0) {
    if (performance.now() > deadline) throw new Error(`${s.name}: jobs left after 120 s`);
    await sleep(2);
  }
  const elapsed = performance.now() - t0;
  const after = await workflowRuns(s.hw);
  if (after.failed > before.failed || after.ok - before.ok !== requests)
    throw new Error(
      `${s.name}: ${after.ok - before.ok} runs of ${requests}, ${after.failed - before.failed} failed`,
    );
  return (requests * 1000) / elapsed;
}

const ms = (xs: number[]) =>
  `p50 ${pct(sorted(xs), 0.5).toFixed(2).padStart(7)} ms   p95 ${pct(sorted(xs), 0.95).toFixed(2).padStart(7)} ms`;

export default defineBench("versions", async () => {
  const baselineRoot = process.env.HEADWATER_BENCH_BASELINE;
  if (!baselineRoot)
    console.log(
      "  · HEADWATER_BENCH_BASELINE not set: the runs/s pairs against the baseline build are skipped",
    );
  const systems: System[] = [];
  try {
    systems.push(await system("this build", undefined));
    if (baselineRoot) systems.push(await system("baseline", baselineRoot));
  } catch (err) {
    for (const s of systems) await s.close();
    throw err;
  }
  const own = systems[0]!;
  let responding: { id: string; endpoint_url: string };
  try {
    // This build stores every update as a version: check that the workflow measured has them all.
    const listed = await call(own.hw, "GET", `/workflows/${own.manyId}/versions?limit=1`);
    const stored = (JSON.parse(listed.text) as { page_info?: { total_count?: number } }).page_info
      ?.total_count;
    if (stored !== VERSIONS) throw new Error(`the workflow has ${stored} versions stored, not ${VERSIONS}`);
    console.log(`  · "many versions": ${stored} versions stored`);
    responding = await made(own.hw, "POST", "/workflows", {
      name: "responds",
      http_response: "workflow",
      steps: RESPONDING,
    });
  } catch (err) {
    for (const s of systems) await s.close();
    throw err;
  }

  const cases: BenchCase[] = [
    {
      name: `test run vs production run, ${ROUNDS * 5} rounds`,
      iterations: 1,
      warmup: 0,
      run: async () => {
        const testBody = { event: { method: "POST", path: "/", body: { i: 1 } } };
        const sides: Array<[string, () => Promise<void>, number[]]> = [
          [
            "endpoint request → $.respond (production run)",
            async () => {
              const status = await postJson(responding.endpoint_url, '{"i":1}');
              if (status !== 200) throw new Error(`the endpoint answered ${status}`);
            },
            [],
          ],
          [
            "POST /workflows/{id}/test → answered (test run)",
            async () => {
              const r = await call(own.hw, "POST", `/workflows/${responding.id}/test`, testBody);
              if (r.status !== 200 || !r.text.includes('"status":"success"'))
                throw new Error(`the test answered ${r.status} ${r.text.slice(0, 300)}`);
            },
            [],
          ],
        ];
        for (let r = 0; r < ROUNDS * 5 + 100; r++) {
          for (const [, run, times] of r % 2 ? [...sides].reverse() : sides) {
            const t0 = performance.now();
            await run();
            if (r >= 100) times.push(performance.now() - t0);
          }
        }
        for (const [name, , times] of sides) console.log(`  · ${name.padEnd(50)}${ms(times)}`);
        const ratio = pct(sorted(sides[1]![2]), 0.5) / pct(sorted(sides[0]![2]), 0.5);
        console.log(`  · ratio test run / production run, p50: ${ratio.toFixed(2)}`);
      },
    },
    {
      name: `runs/s: ${VERSIONS} versions vs 1, ${WINDOWS} windows`,
      iterations: 1,
      warmup: 0,
      run: async () => {
        // Unmeasured: the JIT's first thousands of requests, runs and commits.
        for (const s of systems) for (const url of [s.one, s.many]) await runsPerSecond(s, url, RUNS * 2);
        for (let w = 0; w < WINDOWS; w++) {
          const line: string[] = [];
          for (const s of w % 2 ? [...systems].reverse() : systems) {
            const order = w % 2 ? (["many", "one"] as const) : (["one", "many"] as const);
            for (const kind of order) {
              await sleep(REST_MS);
              s.rates[kind].push(await runsPerSecond(s, s[kind]));
            }
            line.push(`${s.name} ${s.rates.one.at(-1)!.toFixed(0)} / ${s.rates.many.at(-1)!.toFixed(0)}`);
          }
          console.log(`  · window ${w + 1}, runs/s with 1 / ${VERSIONS} versions: ${line.join(", ")}`);
        }
        const pairs = (a: number[], b: number[]) => median(a.map((x, i) => x / b[i]!)).toFixed(2);
        for (const s of systems)
          console.log(
            `  · ${s.name.padEnd(10)} median of ${WINDOWS} windows: ${median(s.rates.one).toFixed(0)} runs/s with 1 version, ${median(s.rates.many).toFixed(0)} with ${VERSIONS}`,
          );
        console.log(
          `  · ratio ${VERSIONS} versions / 1 version, runs/s, median of ${WINDOWS} window pairs: ${pairs(own.rates.many, own.rates.one)}`,
        );
        const base = systems[1];
        if (base) {
          console.log(
            `  · ratio this build / baseline, runs/s, median of ${WINDOWS} window pairs, 1 version: ${pairs(own.rates.one, base.rates.one)}`,
          );
          console.log(
            `  · ratio this build with ${VERSIONS} versions / baseline, runs/s, median of ${WINDOWS} window pairs: ${pairs(own.rates.many, base.rates.many)}`,
          );
        }
      },
    },
  ];

  return {
    cases,
    teardown: async () => {
      for (const s of systems) await s.close();
      agent.destroy();
    },
  };
});
