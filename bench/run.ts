/**
 * `npm run bench [filter]`: runs every `bench/*.bench.ts` (or those whose file name contains
 * `filter`) and prints, per case, the median, p95 and operations per second, then the ratios
 * each suite asked for, of the two cases' medians (labelled so). A suite that measures a pair
 * itself (interleaved, in one case) prints that pair's ratio instead, once, with its statistic,
 * and does not ask for it here too. Nothing here passes or fails on timings.
 */
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { ensureBenchBuild } from "./event-probes.js";
import type { BenchCase, BenchDefinition } from "./harness.js";

const dir = path.dirname(fileURLToPath(import.meta.url));
const filter = process.argv[2];

interface Result {
  name: string;
  medianMs: number;
  p95Ms: number;
  opsPerSec: number;
  n: number;
}

function quantile(sorted: number[], q: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? NaN;
}

async function measure(c: BenchCase): Promise<Result> {
  const iterations = c.iterations ?? 200;
  for (let i = 0; i < (c.warmup ?? 20); i++) await c.run();
  const times: number[] = [];
  const start = performance.now();
  for (let i = 0; i < iterations; i++) {
    const t0 = performance.now();
    await c.run();
    times.push(performance.now() - t0);
  }
  const total = performance.now() - start;
  times.sort((a, b) => a - b);
  return {
    name: c.name,
    medianMs: quantile(times, 0.5),
    p95Ms: quantile(times, 0.95),
    opsPerSec: (iterations / total) * 1000,
    n: iterations,
  };
}

const fmt = (n: number, digits = 2) => n.toFixed(digits).padStart(10);

async function main(): Promise<void> {
  const files = fs
    .readdirSync(dir)
    .filter((f) => f.endsWith(".bench.ts") && (!filter || f.includes(filter)))
    .sort();
  if (files.length === 0) {
    console.log(filter ? `no bench/*.bench.ts matches "${filter}"` : "no bench/*.bench.ts files");
    return;
  }
  // Suites that start a server run this checkout's build: made first if it is stale.
  await ensureBenchBuild();
  for (const file of files) {
    const mod = (await import(pathToFileURL(path.join(dir, file)).href)) as { default?: BenchDefinition };
    if (!mod.default) {
      console.log(`${file}: no default export (use defineBench)`);
      continue;
    }
    console.log(`\n## ${mod.default.name} (${file})`);
    console.log(
      `${"case".padEnd(44)}${"median ms".padStart(10)}${"p95 ms".padStart(10)}${"ops/s".padStart(10)}`,
    );
    const suite = await mod.default.setup();
    const results = new Map<string, Result>();
    try {
      for (const c of suite.cases) {
        const r = await measure(c);
        results.set(r.name, r);
        console.log(`${r.name.padEnd(44)}${fmt(r.medianMs)}${fmt(r.p95Ms)}${fmt(r.opsPerSec, 0)}`);
      }
      for (const [a, b] of suite.ratios ?? []) {
        const ra = results.get(a);
        const rb = results.get(b);
        if (ra && rb) console.log(`ratio  ${a} / ${b}, median: ${(ra.medianMs / rb.medianMs).toFixed(2)}`);
      }
    } finally {
      await suite.teardown?.();
    }
  }
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    console.error(err);
    process.exit(1);
  },
);
