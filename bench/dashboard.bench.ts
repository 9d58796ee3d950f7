/**
 * The dashboard's whole live path under load, in Chromium: an SSE server emitting 1,000
 * events/s → the host's stream manager (shared/sse, 50 ms batches) → the web host's push stream
 * → the browser bridge → the renderer's live store and virtualised table. (bench/live-table
 * measures the renderer alone with an in-page host double; this one adds the host and the wire.)
 *
 * Phases, printed and never asserted:
 * 1. burst: 50,000 events as fast as the server writes them; time until the table shows the cap.
 * 2. soak: 1,000 events/s for HEADWATER_BENCH_DASHBOARD_SECONDS (default 60) with the table at
 *    its 50,000-row cap: events delivered vs emitted, age of the newest visible row (emit → on
 *    screen), main-thread long tasks, page heap after GC and host heap, sampled over time.
 * 3. cases: one event from emit to the table's first row, against a bare page round trip.
 *
 * HEADWATER_BENCH_RENDERER_DIR serves another renderer build (to compare two versions).
 * The machine's load shows in every figure: compare runs made under the same load.
 */
import v8 from "node:v8";
import vm from "node:vm";
import type { Page } from "playwright-core";
import { LIVE_FEED_MAX_ROWS } from "../shared/bridge.js";
import { Host } from "../electron/core/host.js";
import { MemoryKeyVault } from "../electron/core/key-vault.js";
import { MemorySettingsStore } from "../electron/core/settings.js";
import { startFakeApi } from "../electron/core/testing/fake-api.js";
import { bridgeBundler } from "../electron/web/bridge-bundle.js";
import { startWebServer } from "../electron/web/server.js";
import { hasChromium, launchBrowser, SKIP_REASON } from "../e2e/support/browser.js";
import { ensureRendererBuilt } from "../scripts/build-renderer.mjs";
import { defineBench } from "./harness.js";

const SOAK_SECONDS = Number(process.env.HEADWATER_BENCH_DASHBOARD_SECONDS ?? 60);
const RATE = 1000;
const SOURCE = "dc_dashboardbench";

async function heapMb(page: Page): Promise<number> {
  const cdp = await page.context().newCDPSession(page);
  await cdp.send("HeapProfiler.collectGarbage");
  const { usedSize } = (await cdp.send("Runtime.getHeapUsage")) as { usedSize: number };
  await cdp.detach();
  return usedSize / 1024 / 1024;
}

/** The number the events toolbar shows ("50,000 events"). */
async function rowsShown(page: Page): Promise<number> {
  const text = await page.getByRole("toolbar", { name: "Event controls" }).innerText();
  const m = /([\d,]+)\s+events?/.exec(text);
  return m ? Number(m[1]!.replace(/,/g, "")) : 0;
}

/** Emit time carried in the newest row's summary (`t=<ms>`), or undefined. */
const newestRowEmitMs = (page: Page) =>
  page.evaluate(() => {
    const cell = document.querySelector('[role="grid"] [role="row"][aria-rowindex="2"] [role="gridcell"]:nth-child(2)');
    const m = /t=(\d+)/.exec(cell?.textContent ?? "");
    return m ? Number(m[1]) : undefined;
  });

/** This process's heap after a full GC, in MB (gc exposed at run time, no flag needed). */
function hostHeapMb(): number {
  v8.setFlagsFromString("--expose-gc");
  (vm.runInNewContext("gc") as () => void)();
  return process.memoryUsage().heapUsed / 1024 / 1024;
}

const quantile = (xs: number[], q: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(q * s.length))] ?? NaN;
};

export default defineBench("dashboard live path: SSE → host → web bridge → table (Chromium)", async () => {
  if (!hasChromium) {
    console.log(`skipped: ${SKIP_REASON}`);
    return { cases: [] };
  }
  const api = await startFakeApi();
  api.retention = 100;
  api.addSource(SOURCE, "bench source");
  const host = new Host({
    mode: "web",
    version: "bench",
    appRoot: "/nonexistent",
    userDataDir: "/nonexistent",
    settings: new MemorySettingsStore(),
    vault: new MemoryKeyVault(),
    env: { baseUrl: api.baseUrl, apiKey: api.key },
  });
  const web = await startWebServer({
    host,
    port: 0,
    token: "bench-token-0123456789",
    rendererDir: process.env.HEADWATER_BENCH_RENDERER_DIR ?? (await ensureRendererBuilt()),
    bridgeScript: bridgeBundler(),
  });
  const browser = await launchBrowser({ width: 1280, height: 800 });
  const page = browser.page;
  let n = 0;
  const emit = (count: number) => {
    for (let i = 0; i < count; i++) api.emit(SOURCE, { n: n, user: `user-${n % 977}`, path: `/items/${n % 5000}` }, { summary: `t=${Date.now()} n=${n++};` });
  };

  await page.goto(`${web.url}#/sources/${SOURCE}`);
  await page.getByRole("toolbar", { name: "Event controls" }).getByRole("status").filter({ hasText: /Live/ }).waitFor({ timeout: 60_000 });
  await page.evaluate(() => {
    const w = window as unknown as { __longTasks: number[] };
    w.__longTasks = [];
    new PerformanceObserver((list) => {
      for (const e of list.getEntries()) w.__longTasks.push(e.duration);
    }).observe({ type: "longtask", buffered: false });
  });

  // 1. burst to the cap
  const burstStart = Date.now();
  for (let sent = 0; sent < LIVE_FEED_MAX_ROWS; sent += 1000) {
    emit(1000);
    await new Promise((r) => setImmediate(r));
  }
  while ((await rowsShown(page)) < LIVE_FEED_MAX_ROWS && Date.now() - burstStart < 120_000) await page.waitForTimeout(100);
  const burstMs = Date.now() - burstStart;
  console.log(
    `burst: ${LIVE_FEED_MAX_ROWS.toLocaleString("en-US")} events emitted at once, table at ${(await rowsShown(page)).toLocaleString("en-US")} rows after ${(burstMs / 1000).toFixed(1)} s (${Math.round(LIVE_FEED_MAX_ROWS / (burstMs / 1000)).toLocaleString("en-US")} events/s end to end)`,
  );

  // Let the burst drain before measuring the soak.
  await page.waitForTimeout(2000);
  const heapAtCap = await heapMb(page);
  // Forced GCs stop this process (the SSE server and the host) too: only before and after the soak.
  const hostHeapAtCap = hostHeapMb();

  // 2. soak at 1,000 events/s
  await page.evaluate(() => void ((window as unknown as { __longTasks: number[] }).__longTasks.length = 0));
  const received = { count: 0 };
  const stopCounting = host.subscribe({ streamBatch: (b) => void (received.count += b.events.length) });
  const soakStart = Date.now();
  let emitted = 0;
  const ticker = setInterval(() => {
    // Keep to the rate by wall clock (timers drift under load).
    const due = Math.floor(((Date.now() - soakStart) / 1000) * RATE) - emitted;
    if (due > 0) {
      emit(due);
      emitted += due;
    }
  }, 10);
  const ages: number[] = [];
  const samples: string[] = [];
  const sampleEvery = Math.max(5, Math.round(SOAK_SECONDS / 6));
  let nextSample = sampleEvery;
  while (Date.now() - soakStart < SOAK_SECONDS * 1000) {
    await page.waitForTimeout(250);
    const t = await newestRowEmitMs(page);
    if (t !== undefined) ages.push(Date.now() - t);
    const elapsed = (Date.now() - soakStart) / 1000;
    if (elapsed >= nextSample) {
      nextSample += sampleEvery;
      // No forced GC during the soak (a full GC is itself a long task): the live heap figure.
      const pageHeap = await page.evaluate(() => (performance as unknown as { memory: { usedJSHeapSize: number } }).memory.usedJSHeapSize / 1024 / 1024);
      samples.push(
        `${Math.round(elapsed)}s: page heap ${pageHeap.toFixed(1)} MB (before GC), host heap ${(process.memoryUsage().heapUsed / 1024 / 1024).toFixed(1)} MB (before GC), ${(await rowsShown(page)).toLocaleString("en-US")} rows`,
      );
    }
  }
  clearInterval(ticker);
  await page.waitForTimeout(500);
  stopCounting();
  const longTasks = await page.evaluate(() => (window as unknown as { __longTasks: number[] }).__longTasks.slice());
  const heapAfter = await heapMb(page);
  const hostHeapAfter = hostHeapMb();
  const over50 = longTasks.filter((d) => d > 50);
  console.log(`soak: ${SOAK_SECONDS} s at ${RATE.toLocaleString("en-US")} events/s with the table at its cap`);
  console.log(`  emitted ${emitted.toLocaleString("en-US")}, delivered to the page's host session ${received.count.toLocaleString("en-US")} (${((received.count / Math.max(1, emitted)) * 100).toFixed(1)} %)`);
  console.log(`  age of the newest row on screen (emit → visible): p50 ${quantile(ages, 0.5).toFixed(0)} ms, p99 ${quantile(ages, 0.99).toFixed(0)} ms, max ${Math.max(...ages).toFixed(0)} ms (${ages.length} samples)`);
  for (const s of samples) console.log(`  at ${s}`);
  console.log(`  page heap after GC: ${heapAtCap.toFixed(1)} MB at the cap before the soak, ${heapAfter.toFixed(1)} MB after it`);
  console.log(`  host heap after GC (host + SSE server): ${hostHeapAtCap.toFixed(1)} MB before the soak, ${hostHeapAfter.toFixed(1)} MB after it`);
  console.log(`  main-thread long tasks: ${longTasks.length} (> 50 ms: ${over50.length}; longest ${Math.max(0, ...longTasks).toFixed(0)} ms)`);
  console.log(`  page errors: ${browser.errors.length ? browser.errors.slice(0, 3).join("; ") : "none"}`);

  // 3. one event, emit to first row
  return {
    cases: [
      {
        name: "one event: emit → first row of the table",
        iterations: 50,
        warmup: 5,
        run: async () => {
          // The event's number, delimited (its time is set when it is emitted).
          const marker = ` n=${n};`;
          emit(1);
          await page.waitForFunction(
            (m) => document.querySelector('[role="grid"] [role="row"][aria-rowindex="2"]')?.textContent?.includes(m),
            marker,
            { polling: "raf" },
          );
        },
      },
      {
        name: "page round trip (baseline)",
        iterations: 50,
        warmup: 5,
        run: () => page.evaluate(() => new Promise<void>((r) => requestAnimationFrame(() => r()))),
      },
    ],
    ratios: [["one event: emit → first row of the table", "page round trip (baseline)"]],
    teardown: async () => {
      await browser.close();
      await web.close();
      await host.stop();
      await api.close();
    },
  };
});
