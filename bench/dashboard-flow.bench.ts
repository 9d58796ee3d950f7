/**
 * The dashboard's Flow view at 200 nodes and 400 edges (issue 21: "stays smooth"), against the
 * same view with 10 nodes and 10 edges, in one run (part of `npm run bench dashboard`):
 * 1. layout: `buildFlowGraph` (dagre) in Node, as the cases below (ratio big / small);
 * 2. first render in Chromium: page load → the canvas shows nodes and edges, fitted, and the
 *    longest main-thread task meanwhile (the layout runs in a worker: it must not be the page's);
 * 3. frame times while panning (a scripted drag on the pane) and zooming (wheel), from
 *    requestAnimationFrame deltas: p50 / p95 / max and the share of frames over 25 ms (a missed
 *    60 Hz vsync), against the same page sitting idle and against the small graph;
 * 4. CPU time per pan step and per wheel step of the page's renderer process (main thread,
 *    compositor and raster), from Chromium's own counter: unlike frame times, it moves less when
 *    other processes load the machine.
 * With HEADWATER_BENCH_BASELINE_DIR set to another renderer build (say the previous commit's
 * dist/renderer), the 200/400 graph is measured on both, alternately, and printed as ratios.
 * The built renderer runs with an in-page host double serving the generated wiring (no server:
 * the view's cost, not the API's). Printed, never asserted.
 */
import type { Page } from "playwright-core";
import type { Source, Subscription, Workflow } from "../shared/resources/index.js";
import { buildFlowGraph } from "../renderer/views/flow/graph.js";
import { hasChromium, launchBrowser, SKIP_REASON } from "../e2e/support/browser.js";
import { ensureRendererBuilt } from "../scripts/build-renderer.mjs";
import { defineBench } from "./harness.js";
import { serveDir } from "./serve-dir.js";

interface Wiring {
  sources: Source[];
  workflows: Workflow[];
  subscriptions: Subscription[];
}

/**
 * A deterministic account: `nodes` split into sources and three tiers of workflows, `edges`
 * distinct subscriptions from a node to one in a later tier (a layered graph, as real wiring is).
 * Self-contained: it is also serialised into the page.
 */
export function makeWiring(nodes: number, edges: number): Wiring {
  let seed = 42;
  const rnd = (n: number) => {
    // Park–Miller: the product stays below 2^53, so it is exact in a double.
    seed = (seed * 48271) % 2147483647;
    return seed % n;
  };
  const nSources = Math.round(nodes * 0.4);
  const sources = Array.from({ length: nSources }, (_, i) => ({
    id: `dc_s${i}`,
    component_id: "sc_bench",
    configured_props: {},
    active: true,
    created_at: 1_700_000_000,
    updated_at: 1_700_000_000,
    name: `source ${i}`,
    name_slug: `source-${i}`,
  }));
  const workflows = Array.from({ length: nodes - nSources }, (_, i) => ({
    id: `p_w${i}`,
    name: `workflow ${i}`,
    deployment_id: `d_w${i}`,
    steps: [],
    endpoint_url: `http://bench/w${i}`,
    active: true,
    created_at: 1_700_000_000,
    updated_at: 1_700_000_000,
  }));
  // Tier 0: sources; tiers 1..3: workflows in thirds.
  const tiers: string[][] = [sources.map((s) => s.id), [], [], []];
  workflows.forEach((w, i) => tiers[1 + (i % 3)]!.push(w.id));
  const seen = new Set<string>();
  const subscriptions: Subscription[] = [];
  while (subscriptions.length < edges) {
    const from = rnd(3);
    const to = from + 1 + rnd(3 - from);
    const emitter = tiers[from]![rnd(tiers[from]!.length)]!;
    const listener = tiers[to]![rnd(tiers[to]!.length)]!;
    if (seen.has(`${emitter}>${listener}`)) continue;
    seen.add(`${emitter}>${listener}`);
    subscriptions.push({ emitter_id: emitter, listener_id: listener, event_name: "" } as Subscription);
  }
  return { sources, workflows, subscriptions } as unknown as Wiring;
}

/** Runs in the page before the app: a `window.headwater` serving the wiring named in `?graph=`. */
function installHostDouble(sizes: Record<string, [number, number]>): void {
  const w = window as unknown as Record<string, unknown>;
  const make = (w as { __makeWiring: typeof makeWiring }).__makeWiring;
  const [n, e] = sizes[new URLSearchParams(location.search).get("graph") ?? "small"]!;
  const wiring = make(n, e);
  const ok = (value: unknown) => Promise.resolve({ ok: true, value });
  const page = (data: unknown[]) =>
    ok({ page_info: { total_count: data.length, count: data.length, start_cursor: null, end_cursor: null }, data });
  const stats = () => ok({ series: [{ t: Date.now(), events: 12 }] });
  const known: Record<string, (...a: unknown[]) => Promise<unknown>> = {
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
    listMySources: () => page(wiring.sources),
    listMyWorkflows: () => page(wiring.workflows),
    listMySubscriptions: () => ok(wiring.subscriptions),
    getSourceStats: stats,
    getWorkflowStats: stats,
  };
  // Anything else the shell asks for: an empty answer, or a no-op unsubscribe for `on*` listeners.
  w.headwater = new Proxy(known, {
    get: (t, k: string) => t[k] ?? (k.startsWith("on") ? () => () => undefined : () => page([])),
  });
  const frames: number[] = [];
  let recording = false;
  let last = 0;
  const tick = (t: number) => {
    if (recording && last) frames.push(t - last);
    last = t;
    requestAnimationFrame(tick);
  };
  requestAnimationFrame(tick);
  // Long tasks from the start, for the first render (the layout must not be one of them).
  const longTasks: number[] = [];
  new PerformanceObserver((list) => {
    for (const e of list.getEntries()) longTasks.push(e.duration);
  }).observe({ type: "longtask", buffered: true });
  w.__longestTask = () => Math.max(0, ...longTasks);
  w.__frames = {
    start: () => ((frames.length = 0), (last = 0), (recording = true)),
    stop: () => ((recording = false), frames.slice()),
  };
}

const SIZES: Record<string, [number, number]> = { small: [10, 10], big: [200, 400] };

const quantile = (xs: number[], q: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(q * s.length))] ?? NaN;
};

interface Frames {
  p50: number;
  p95: number;
  max: number;
  dropped: number;
  n: number;
}
const summarise = (xs: number[]): Frames => ({
  p50: quantile(xs, 0.5),
  p95: quantile(xs, 0.95),
  max: Math.max(...xs),
  dropped: xs.filter((d) => d > 25).length / Math.max(1, xs.length),
  n: xs.length,
});
const fmtFrames = (f: Frames) =>
  `p50 ${f.p50.toFixed(1)} ms, p95 ${f.p95.toFixed(1)} ms, max ${f.max.toFixed(0)} ms, dropped ${(f.dropped * 100).toFixed(1)} % (${f.n} frames)`;

/** Page load → the canvas has drawn nodes and edges and fitted the view; ms on the page's clock. */
async function firstRender(page: Page, url: string): Promise<number> {
  return (await firstRenderWithTasks(page, url)).ms;
}

/** firstRender, and the longest main-thread task until then (ms). */
async function firstRenderWithTasks(page: Page, url: string): Promise<{ ms: number; longest: number }> {
  const ms = await firstRenderOnly(page, url);
  const longest = await page.evaluate(() => (window as unknown as { __longestTask: () => number }).__longestTask());
  return { ms, longest };
}

async function firstRenderOnly(page: Page, url: string): Promise<number> {
  await page.goto(url);
  const handle = await page.waitForFunction(
    () => {
      const nodes = document.querySelectorAll(".react-flow__node");
      const visible = [...nodes].some((n) => (n as HTMLElement).style.visibility !== "hidden");
      return visible && document.querySelector(".react-flow__edge") ? performance.now() : false;
    },
    undefined,
    { polling: "raf", timeout: 60_000 },
  );
  return (await handle.jsonValue()) as number;
}

const startFrames = (page: Page) => page.evaluate(() => (window as unknown as { __frames: { start: () => void } }).__frames.start());
const stopFrames = (page: Page) => page.evaluate(() => (window as unknown as { __frames: { stop: () => number[] } }).__frames.stop());

/** A point on the empty pane (a drag there pans; on a node it would not). */
async function panePoint(page: Page): Promise<{ x: number; y: number }> {
  return page.evaluate(() => {
    const r = document.querySelector(".react-flow")!.getBoundingClientRect();
    for (let fy = 0.5; fy < 0.95; fy += 0.05)
      for (let fx = 0.3; fx < 0.95; fx += 0.05) {
        const x = r.left + r.width * fx;
        const y = r.top + r.height * fy;
        if (document.elementFromPoint(x, y)?.classList.contains("react-flow__pane")) return { x, y };
      }
    return { x: r.left + 10, y: r.top + r.height - 10 };
  });
}

/**
 * CPU seconds so far of the page's renderer process, all its threads (main, compositor, raster):
 * Chromium's ProcessTime counter. (Its ThreadTime is not the main thread's: it stays flat.)
 */
async function cpu(page: Page): Promise<number> {
  const session = await page.context().newCDPSession(page);
  try {
    await session.send("Performance.enable");
    const { metrics } = await session.send("Performance.getMetrics");
    return metrics.find((m) => m.name === "ProcessTime")?.value ?? NaN;
  } finally {
    await session.detach();
  }
}

interface Motion {
  pan: Frames;
  zoom: Frames;
  /** Renderer CPU ms per pan step (mouse move) and per wheel step. */
  panCpu: number;
  zoomCpu: number;
}

const PAN_STEPS = 4 * 2 * 40;
const WHEEL_STEPS = 60;
const perStep = (a: number, b: number, n: number) => ((b - a) * 1000) / n;

/** Frame times while dragging the pane back and forth, then while wheel-zooming in and out. */
async function panAndZoom(page: Page): Promise<Motion> {
  const p = await panePoint(page);
  await page.mouse.move(p.x, p.y);
  const c0 = await cpu(page);
  await startFrames(page);
  await page.mouse.down();
  for (let i = 0; i < 4; i++) {
    await page.mouse.move(p.x - 300, p.y - 150, { steps: 40 });
    await page.mouse.move(p.x, p.y, { steps: 40 });
  }
  await page.mouse.up();
  const pan = summarise(await stopFrames(page));
  const c1 = await cpu(page);
  await startFrames(page);
  for (let i = 0; i < WHEEL_STEPS; i++) {
    await page.mouse.wheel(0, i % 30 < 15 ? -60 : 60);
    await page.waitForTimeout(16);
  }
  const zoom = summarise(await stopFrames(page));
  const c2 = await cpu(page);
  return { pan, zoom, panCpu: perStep(c0, c1, PAN_STEPS), zoomCpu: perStep(c1, c2, WHEEL_STEPS) };
}

const fmtCpu = (c: number) => `renderer CPU ${c.toFixed(1)} ms per step`;

/** The 200/400 graph from `url`: first render, idle frames, pan and zoom. */
async function measureBig(page: Page, url: string): Promise<{ render: { ms: number; longest: number }; idle: Frames } & Motion> {
  const render = await firstRenderWithTasks(page, url);
  await page.waitForTimeout(500);
  await startFrames(page);
  await page.waitForTimeout(3000);
  const idle = summarise(await stopFrames(page));
  return { render, idle, ...(await panAndZoom(page)) };
}

export default defineBench("dashboard flow view: 200 nodes / 400 edges (Chromium)", async () => {
  const small = makeWiring(...SIZES.small!);
  const big = makeWiring(...SIZES.big!);
  const bigGraph = buildFlowGraph(big.sources, big.workflows, big.subscriptions);
  console.log(`graph: ${bigGraph.nodes.length} nodes, ${bigGraph.edges.length} edges (baseline ${small.sources.length + small.workflows.length} / ${small.subscriptions.length})`);
  const layoutCases = [
    { name: "layout 200 nodes / 400 edges (dagre)", iterations: 20, warmup: 3, run: async () => buildFlowGraph(big.sources, big.workflows, big.subscriptions) },
    { name: "layout 10 nodes / 10 edges (baseline)", iterations: 200, warmup: 20, run: async () => buildFlowGraph(small.sources, small.workflows, small.subscriptions) },
  ];
  const layoutRatio: [string, string] = [layoutCases[0]!.name, layoutCases[1]!.name];
  if (!hasChromium) {
    console.log(`browser part skipped: ${SKIP_REASON}`);
    return { cases: layoutCases, ratios: [layoutRatio] };
  }
  const site = await serveDir(process.env.HEADWATER_BENCH_RENDERER_DIR ?? (await ensureRendererBuilt()));
  const browser = await launchBrowser({ width: 1280, height: 800 });
  const page = browser.page;
  // tsx compiles with esbuild's keepNames, whose `__name` helper does not exist in the page.
  await page.addInitScript({
    content: `var __name = (f) => f;\nwindow.__makeWiring = ${makeWiring.toString()};\n(${installHostDouble.toString()})(${JSON.stringify(SIZES)});`,
  });
  try {
    const renders: Record<string, number[]> = { small: [], big: [] };
    // Alternate so that load from other processes falls on both alike.
    for (let i = 0; i < 5; i++)
      for (const g of ["small", "big"]) renders[g]!.push(await firstRender(page, `${site.url}?graph=${g}#/flow`));
    const r = { small: quantile(renders.small!, 0.5), big: quantile(renders.big!, 0.5) };
    console.log(`first render (page load → nodes and edges drawn, median of 5): 200/400 ${r.big.toFixed(0)} ms, 10/10 ${r.small.toFixed(0)} ms, ratio ${(r.big / r.small).toFixed(2)}`);

    const results: Record<string, Awaited<ReturnType<typeof measureBig>>> = {};
    for (const g of ["small", "big"]) results[g] = await measureBig(page, `${site.url}?graph=${g}#/flow`);
    const print = (title: string, x: Awaited<ReturnType<typeof measureBig>>) => {
      console.log(`${title}:`);
      console.log(`  first render ${x.render.ms.toFixed(0)} ms, longest main-thread task meanwhile ${x.render.longest.toFixed(0)} ms`);
      console.log(`  idle  ${fmtFrames(x.idle)}`);
      console.log(`  pan   ${fmtFrames(x.pan)}; ${fmtCpu(x.panCpu)}`);
      console.log(`  zoom  ${fmtFrames(x.zoom)}; ${fmtCpu(x.zoomCpu)}`);
    };
    for (const g of ["small", "big"]) print(`${SIZES[g]!.join(" nodes / ")} edges`, results[g]!);
    const b = results.big!;
    const s = results.small!;
    console.log(`ratio  p95 frame, pan 200/400 / pan 10/10: ${(b.pan.p95 / s.pan.p95).toFixed(2)}; / idle: ${(b.pan.p95 / b.idle.p95).toFixed(2)}`);
    console.log(`ratio  p95 frame, zoom 200/400 / zoom 10/10: ${(b.zoom.p95 / s.zoom.p95).toFixed(2)}; / idle: ${(b.zoom.p95 / b.idle.p95).toFixed(2)}`);
    console.log(`ratio  renderer CPU per step, 200/400 / 10/10: pan ${(b.panCpu / s.panCpu).toFixed(2)}, zoom ${(b.zoomCpu / s.zoomCpu).toFixed(2)}`);

    const baselineDir = process.env.HEADWATER_BENCH_BASELINE_DIR;
    if (baselineDir) {
      // This build against another, alternately, so that load from other processes falls on both.
      const base = await serveDir(baselineDir);
      try {
        const runs: Record<"this" | "baseline", Array<Awaited<ReturnType<typeof measureBig>>>> = { this: [], baseline: [] };
        for (let i = 0; i < 2; i++) {
          runs.baseline.push(await measureBig(page, `${base.url}?graph=big#/flow`));
          runs.this.push(await measureBig(page, `${site.url}?graph=big#/flow`));
        }
        const med = (xs: number[]) => quantile(xs, 0.5);
        const pick = (k: "this" | "baseline", f: (x: Awaited<ReturnType<typeof measureBig>>) => number) => med(runs[k].map(f));
        console.log(`200/400 against the baseline build (${baselineDir}), 2 runs each, alternating:`);
        for (const k of ["baseline", "this"] as const) runs[k].forEach((x, i) => print(`  ${k} #${i + 1}`, x));
        const row = (what: string, f: (x: Awaited<ReturnType<typeof measureBig>>) => number) =>
          console.log(`ratio  ${what}, this / baseline: ${(pick("this", f) / pick("baseline", f)).toFixed(2)} (${pick("this", f).toFixed(1)} / ${pick("baseline", f).toFixed(1)})`);
        row("first render ms", (x) => x.render.ms);
        row("longest main-thread task during first render ms", (x) => x.render.longest);
        row("pan p95 frame ms", (x) => x.pan.p95);
        row("zoom p95 frame ms", (x) => x.zoom.p95);
        row("pan renderer CPU ms per step", (x) => x.panCpu);
        row("zoom renderer CPU ms per step", (x) => x.zoomCpu);
      } finally {
        await base.close();
      }
    }
    console.log(`  page errors: ${browser.errors.length ? browser.errors.slice(0, 3).join("; ") : "none"}`);
  } finally {
    await browser.close();
    await site.close();
  }
  return { cases: layoutCases, ratios: [layoutRatio] };
});
