/**
 * The page's main-thread tasks from a Chromium trace (category `toplevel`: one event per task,
 * cheap to record), each with its wall time and its CPU time. A long task (PerformanceObserver)
 * is wall time, which on a loaded machine also counts the time the thread waited for a core;
 * the CPU time says what the page itself cost.
 */
import type { CDPSession, Page } from "playwright-core";

export interface TaskTimes {
  wallMs: number;
  cpuMs: number;
}

interface TraceEvent {
  name: string;
  ph: string;
  pid: number;
  tid: number;
  dur?: number;
  tdur?: number;
  args?: { name?: string };
}

/** Starts recording; the returned function stops and answers the renderer main thread's tasks. */
export async function traceMainThreadTasks(page: Page): Promise<() => Promise<TaskTimes[]>> {
  const cdp: CDPSession = await page.context().newCDPSession(page);
  const events: TraceEvent[] = [];
  cdp.on("Tracing.dataCollected", (d) => void events.push(...(d.value as unknown as TraceEvent[])));
  await cdp.send("Tracing.start", { categories: "toplevel,__metadata", transferMode: "ReportEvents" });
  return async () => {
    const done = new Promise((r) => cdp.once("Tracing.tracingComplete", r));
    await cdp.send("Tracing.end");
    await done;
    await cdp.detach();
    // The page's renderer: of the renderer main threads, the busiest.
    const mains = new Set(
      events
        .filter((e) => e.ph === "M" && e.name === "thread_name" && e.args?.name === "CrRendererMain")
        .map((e) => `${e.pid}:${e.tid}`),
    );
    const byThread = new Map<string, TaskTimes[]>();
    for (const e of events) {
      const key = `${e.pid}:${e.tid}`;
      if (
        e.ph !== "X" ||
        (e.name !== "RunTask" && e.name !== "ThreadControllerImpl::RunTask") ||
        !mains.has(key)
      )
        continue;
      const list = byThread.get(key) ?? [];
      list.push({ wallMs: (e.dur ?? 0) / 1000, cpuMs: (e.tdur ?? e.dur ?? 0) / 1000 });
      byThread.set(key, list);
    }
    const total = (l: TaskTimes[]) => l.reduce((n, t) => n + t.cpuMs, 0);
    return [...byThread.values()].sort((a, b) => total(b) - total(a))[0] ?? [];
  };
}
