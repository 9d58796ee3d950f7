/**
 * Typing in the workflow builder's step editor, in Chromium: the built renderer with an in-page
 * host double holding two workflows, one whose step has 2,000 lines and, as the baseline measured
 * in the same run, one whose step has 20. In each, ~5 s of typing in the middle of the step (a
 * key every 40 ms plus Playwright's own time: fast typing); and 5 s of doing nothing on the long
 * step, for the machine's own noise. Reports, once each, labelled: the main thread's long tasks
 * (PerformanceObserver, wall time: the longest, and how many were over 50 ms), the same thread's
 * tasks by CPU time (a trace: on a loaded machine wall time also counts waiting for a core) and
 * their CPU per key typed, the slowest keystroke to its next paint (Event Timing), and the draft's autosave requests (how many,
 * and the most in any one second: at most 1 by design). Printed, never asserted.
 */
import type { Page } from "playwright-core";
import { hasChromium, launchBrowser, SKIP_REASON } from "../e2e/support/browser.js";
import { ensureRendererBuilt } from "../scripts/build-renderer.mjs";
import { defineBench } from "./harness.js";
import { installBuilderHostDouble, type BuilderBench } from "./builder-host-double.js";
import { traceMainThreadTasks } from "./main-thread-tasks.js";
import { serveDir } from "./serve-dir.js";

const TYPE_MS = Number(process.env.HEADWATER_BENCH_TYPING_MS ?? 5000);
const KEY_DELAY_MS = 40;
const TEXT = " total += 1; // typed";

/** A step of `lines` lines of plain code (a step body, as a long hand-written one looks). */
function stepOf(lines: number): string {
  const body: string[] = [];
  for (let i = 0; body.length < lines - 6; i++) {
    body.push(`    const item${i} = steps.trigger.event.items?.[${i}] ?? { id: ${i}, name: "item ${i}" };`);
    body.push(`    if (item${i}.name.length > ${i % 17}) total += item${i}.id;`);
  }
  return [
    "export default defineComponent({",
    "  async run({ steps, $ }) {",
    "    let total = 0;",
    ...body.slice(0, lines - 6),
    "    return { total };",
    "  },",
    "});",
  ].join("\n");
}

const read = (page: Page) =>
  page.evaluate(() => (window as unknown as { __bench: BuilderBench }).__bench.read());
const reset = (page: Page) =>
  page.evaluate(() => (window as unknown as { __bench: BuilderBench }).__bench.reset());

interface Phase {
  /** PerformanceObserver's long tasks (wall time, over 50 ms). */
  longTasks: number[];
  /** Every main-thread task's CPU time (trace). */
  cpu: number[];
  slowestKeyMs: number;
  keys: number;
  saves: number[];
}

/** Opens workflow `id`'s Steps tab and puts the cursor mid-step (~1,000 lines down in the long one). */
async function openStep(page: Page, base: string, id: string, lines: number): Promise<void> {
  await page.goto(`${base}#/workflows/${id}`);
  await page.getByRole("tab", { name: /^Steps/ }).click();
  await page.getByRole("textbox", { name: "Code of step work" }).click();
  await page.keyboard.press("Control+Home");
  for (let i = 0; i < Math.max(1, Math.round(lines / 2 / 20)); i++) await page.keyboard.press("PageDown");
  await page.keyboard.press("End");
  await page.waitForTimeout(1500);
}

/** Measures TYPE_MS of `act` (typing, or nothing: the machine's own noise). */
async function measure(page: Page, act: () => Promise<number>): Promise<Phase> {
  await reset(page);
  const stop = await traceMainThreadTasks(page);
  const keys = await act();
  // The last save leaves a second after the first change it holds.
  await page.waitForTimeout(1500);
  const tasks = await stop();
  const r = await read(page);
  return {
    longTasks: r.longTasks,
    cpu: tasks.map((t) => t.cpuMs),
    slowestKeyMs: r.slowestKeyMs,
    keys,
    saves: r.saves,
  };
}

async function type(page: Page): Promise<number> {
  const started = Date.now();
  let keys = 0;
  while (Date.now() - started < TYPE_MS) {
    for (const ch of TEXT) {
      if (Date.now() - started >= TYPE_MS) break;
      await page.keyboard.type(ch);
      keys++;
      await page.waitForTimeout(KEY_DELAY_MS);
    }
  }
  return keys;
}

/** The most saves that started within any one second. */
function mostPerSecond(saves: number[]): number {
  let most = 0;
  for (let i = 0; i < saves.length; i++) {
    const within = saves.filter((t) => t >= saves[i]! && t < saves[i]! + 1000).length;
    most = Math.max(most, within);
  }
  return most;
}

const max = (l: number[]) => (l.length ? Math.max(...l) : 0);
const over50 = (l: number[]) => l.filter((d) => d > 50).length;

function report(label: string, p: Phase): void {
  const typed = p.keys ? `, ${p.keys} keys` : "";
  console.log(
    `${label}${typed}: longest long task ${p.longTasks.length ? `${max(p.longTasks).toFixed(0)} ms` : "none"}; long tasks over 50 ms: ${over50(p.longTasks)}; longest task by CPU ${max(p.cpu).toFixed(0)} ms; tasks over 50 ms of CPU: ${over50(p.cpu)}${p.keys ? `; main-thread CPU per key ${(p.cpu.reduce((a, b) => a + b, 0) / p.keys).toFixed(1)} ms; slowest keystroke to paint ${p.slowestKeyMs.toFixed(0)} ms` : ""}`,
  );
}

export default defineBench("builder: typing in a step (Chromium)", async () => {
  if (!hasChromium) {
    console.log(`skipped: ${SKIP_REASON}`);
    return { cases: [] };
  }
  const dir = await ensureRendererBuilt();
  const site = await serveDir(dir);
  const browser = await launchBrowser({ width: 1360, height: 900 });
  const page = browser.page;
  const workflows = { p_small: stepOf(20), p_big: stepOf(2000) };
  await page.addInitScript({
    content: `var __name = (f) => f;\n(${installBuilderHostDouble.toString()})(${JSON.stringify(workflows)});`,
  });
  try {
    await openStep(page, site.url, "p_small", 20);
    const small = await measure(page, () => type(page));
    await openStep(page, site.url, "p_big", 2000);
    const idle = await measure(page, async () => (await page.waitForTimeout(TYPE_MS), 0));
    const big = await measure(page, () => type(page));
    const secs = TYPE_MS / 1000;
    report(`idle ${secs}s on the 2,000-line step (the machine's own noise)`, idle);
    report(`typing ${secs}s in a 20-line step (baseline)`, small);
    report(`typing ${secs}s in a 2,000-line step`, big);
    console.log(
      `ratio  longest task by CPU, 2,000-line / 20-line step: ${(max(big.cpu) / Math.max(1, max(small.cpu))).toFixed(2)}`,
    );
    console.log(
      `autosave while typing ${secs}s in the 2,000-line step: ${big.saves.length} requests, ${(big.saves.length / secs).toFixed(2)}/s on average, at most ${mostPerSecond(big.saves)} in any one second`,
    );
    console.log(`page errors: ${browser.errors.length ? browser.errors.join("; ") : "none"}`);
  } finally {
    await browser.close();
    await site.close();
  }
  return { cases: [] };
});
