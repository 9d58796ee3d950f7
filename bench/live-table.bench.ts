/**
 * The dashboard's live events table under load, in Chromium: the built renderer with an in-page
 * host double that streams 1,000 events/s (a 50-event batch every 50 ms, as the real host
 * flushes) into one source's table after filling it to the 50,000-row retention cap. Reports the
 * main thread's long tasks (> 50 ms), rows shown, and the JS heap over the soak, which should be
 * flat once the cap is reached. `HEADWATER_BENCH_LIVE_SECONDS` shortens the 60 s soak.
 * Printed, never asserted.
 */
import type { Page } from "playwright-core";
import { hasChromium, launchBrowser, SKIP_REASON, type Browser } from "../e2e/support/browser.js";
import { ensureRendererBuilt } from "../scripts/build-renderer.mjs";
import { defineBench } from "./harness.js";
import { serveDir } from "./serve-dir.js";

const SOAK_SECONDS = Number(process.env.HEADWATER_BENCH_LIVE_SECONDS ?? 60);
const CAP = 50_000;

/**
 * Runs in the page before the app: a `window.headwater` with one source whose watch streams
 * generated events, plus `window.__bench` to start the stream and read long tasks.
 */
function installHostDouble(opts: { cap: number }): void {
  const w = window as unknown as Record<string, unknown>;
  const ok = (value: unknown) => Promise.resolve({ ok: true, value });
  const source = {
    id: "dc_bench",
    component_id: "sc_bench",
    configured_props: {},
    active: true,
    created_at: 1_700_000_000,
    updated_at: 1_700_000_000,
    name: "bench source",
    name_slug: "bench-source",
  };
  const batchListeners = new Set<(b: unknown) => void>();
  const stateListeners = new Set<(s: unknown) => void>();
  let seq = 0;
  const makeEvent = () => {
    const now = Date.now();
    const n = seq++;
    return {
      id: `${now}-${n}`,
      indexed_at_ms: now,
      event: {
        n,
        user: `user-${n % 977}`,
        action: n % 3 ? "click" : "view",
        path: `/items/${n % 5000}`,
        tags: ["a", "b"],
      },
      metadata: { emit_id: `e${n}`, name: "", emitter_id: "dc_bench", summary: `event number ${n}` },
    };
  };
  const push = (count: number) => {
    const events = Array.from({ length: count }, makeEvent);
    for (const l of batchListeners) l({ watchId: "w1", events });
  };
  const longTasks: { start: number; duration: number }[] = [];
  new PerformanceObserver((list) => {
    for (const e of list.getEntries()) longTasks.push({ start: e.startTime, duration: e.duration });
  }).observe({ type: "longtask", buffered: true });
  let timer: ReturnType<typeof setInterval> | undefined;
  let pushed = 0;
  w.__bench = {
    // Back-fill in 5,000-event batches (the host never sends one larger than a flush).
    fill: () => {
      for (let i = 0; i < opts.cap; i += 5000) push(5000);
      pushed += opts.cap;
    },
    start: (perBatch: number, everyMs: number) => {
      timer = setInterval(() => {
        push(perBatch);
        pushed += perBatch;
      }, everyMs);
    },
    stop: () => clearInterval(timer),
    pushOnce: (n: number) => push(n),
    longTasks: () => longTasks.slice(),
    resetLongTasks: () => void (longTasks.length = 0),
    pushed: () => pushed,
  };
  const page = (data: unknown[]) =>
    ok({
      page_info: { total_count: data.length, count: data.length, start_cursor: null, end_cursor: null },
      data,
    });
  w.headwater = {
    hostInfo: () => ok({ mode: "web", version: "bench" }),
    listProfiles: () =>
      ok([
        {
          id: "local",
          name: "Local",
          kind: "local",
          baseUrl: "http://bench/v1",
          key: { isSet: true, lastFour: "bnch" },
          status: "ready",
          current: true,
        },
      ]),
    onProfilesChanged: () => () => undefined,
    listMySources: () => page([source]),
    getSource: () => ok(source),
    listSourceEvents: () => page([]),
    watch: () => {
      setTimeout(() => stateListeners.forEach((l) => l({ watchId: "w1", state: "open" })), 0);
      return ok("w1");
    },
    unwatch: () => ok(undefined),
    onStreamBatch: (cb: (b: unknown) => void) => (batchListeners.add(cb), () => batchListeners.delete(cb)),
    onStreamState: (cb: (s: unknown) => void) => (stateListeners.add(cb), () => stateListeners.delete(cb)),
  };
}

/** Page-clock windows of the forced collections below, whose pauses are the bench's, not the app's. */
const gcWindows: [number, number][] = [];
const pageNow = (page: Page) => page.evaluate(() => performance.now());

async function heapMb(page: Page): Promise<number> {
  const cdp = await page.context().newCDPSession(page);
  const before = await pageNow(page);
  await cdp.send("HeapProfiler.collectGarbage");
  gcWindows.push([before, await pageNow(page)]);
  const { usedSize } = (await cdp.send("Runtime.getHeapUsage")) as { usedSize: number };
  await cdp.detach();
  return usedSize / 1024 / 1024;
}

const rowsShown = (page: Page) =>
  page.getByRole("toolbar", { name: "Event controls" }).locator(".count").innerText();

export default defineBench("live events table (Chromium)", async () => {
  if (!hasChromium) {
    console.log(`skipped: ${SKIP_REASON}`);
    return { cases: [] };
  }
  const dir = await ensureRendererBuilt();
  const site = await serveDir(dir);
  const browser: Browser = await launchBrowser({ width: 1280, height: 800 });
  const page = browser.page;
  // tsx compiles with esbuild's keepNames, whose `__name` helper does not exist in the page.
  await page.addInitScript({
    content: `var __name = (f) => f;\n(${installHostDouble.toString()})(${JSON.stringify({ cap: CAP })});`,
  });
  await page.goto(`${site.url}#/sources/dc_bench`);
  await page.getByRole("grid").waitFor({ timeout: 30_000 });

  await page.evaluate(() => (window as unknown as { __bench: { fill: () => void } }).__bench.fill());
  await page.waitForTimeout(1000);
  console.log(`filled to the cap: ${await rowsShown(page)}; heap ${(await heapMb(page)).toFixed(1)} MB`);

  // Baseline: long tasks of the same page, full table, no stream, for a while: what the machine
  // itself costs (a loaded 2-core box shows some even when the app does nothing).
  const idleSeconds = Math.min(15, SOAK_SECONDS);
  await page.evaluate(() =>
    (window as unknown as { __bench: { resetLongTasks: () => void } }).__bench.resetLongTasks(),
  );
  await page.waitForTimeout(idleSeconds * 1000);
  const idle = await page.evaluate(() =>
    (window as unknown as { __bench: { longTasks: () => { duration: number }[] } }).__bench
      .longTasks()
      .map((t) => t.duration),
  );
  console.log(
    `idle baseline (${idleSeconds}s, no stream): long tasks ${idle.length} (> 50 ms: ${idle.filter((d) => d > 50).length}; longest ${Math.max(0, ...idle).toFixed(0)} ms)`,
  );

  await page.evaluate(() => {
    const b = (
      window as unknown as { __bench: { resetLongTasks: () => void; start: (n: number, ms: number) => void } }
    ).__bench;
    b.resetLongTasks();
    b.start(50, 50);
  });
  const samples: string[] = [];
  const step = Math.max(5, Math.round(SOAK_SECONDS / 6));
  for (let t = step; t <= SOAK_SECONDS; t += step) {
    await page.waitForTimeout(step * 1000);
    samples.push(`${t}s: ${(await heapMb(page)).toFixed(1)} MB, ${await rowsShown(page)}`);
  }
  const soak = await page.evaluate(() => {
    type Task = { start: number; duration: number };
    const b = (
      window as unknown as { __bench: { stop: () => void; longTasks: () => Task[]; pushed: () => number } }
    ).__bench;
    b.stop();
    return { tasks: b.longTasks(), pushed: b.pushed() };
  });
  const inGc = (t: { start: number; duration: number }) =>
    gcWindows.some(([a, z]) => t.start < z && t.start + t.duration > a);
  const appTasks = soak.tasks.filter((t) => !inGc(t)).map((t) => t.duration);
  const over50 = appTasks.filter((d) => d > 50);
  console.log(
    `soak: ${SOAK_SECONDS}s at 1,000 events/s (50 per 50 ms), ${soak.pushed.toLocaleString("en-US")} events pushed in all`,
  );
  for (const s of samples) console.log(`  heap after GC at ${s}`);
  console.log(
    `  main-thread long tasks outside the bench's forced GCs: ${appTasks.length} (> 50 ms: ${over50.length}; longest ${Math.max(0, ...appTasks).toFixed(0)} ms); during them: ${soak.tasks.length - appTasks.length}`,
  );
  console.log(`  page errors: ${browser.errors.length ? browser.errors.join("; ") : "none"}`);

  return {
    cases: [
      {
        name: "50-event batch at 50k rows, to next paint",
        iterations: 100,
        warmup: 10,
        run: () =>
          page.evaluate(
            () =>
              new Promise<void>((resolve) => {
                (window as unknown as { __bench: { pushOnce: (n: number) => void } }).__bench.pushOnce(50);
                requestAnimationFrame(() => requestAnimationFrame(() => resolve()));
              }),
          ),
      },
      {
        name: "empty frame (baseline)",
        iterations: 100,
        warmup: 10,
        run: () =>
          page.evaluate(
            () =>
              new Promise<void>((resolve) =>
                requestAnimationFrame(() => requestAnimationFrame(() => resolve())),
              ),
          ),
      },
    ],
    ratios: [["50-event batch at 50k rows, to next paint", "empty frame (baseline)"]],
    teardown: async () => {
      await browser.close();
      await site.close();
    },
  };
});
