/**
 * The builder bench's host: a `window.headwater` in the page (installed before the app, so it is
 * serialized: nothing outside the function is used) with one workflow per entry of `steps`
 * (`{id: code}`, one code step named "work" each), no draft at first, and every draft save kept
 * with its time; plus `window.__bench` reading the long tasks, the slowest keystroke to paint
 * (Event Timing) and the saves since the last `reset()`.
 */
export interface BuilderBench {
  reset(): void;
  read(): { longTasks: number[]; slowestKeyMs: number; saves: number[] };
}

export function installBuilderHostDouble(steps: Record<string, string>): void {
  const w = window as unknown as Record<string, unknown>;
  const ok = (value: unknown) => Promise.resolve({ ok: true, value });
  const fail = (status: number, code: string, message: string) =>
    Promise.resolve({ ok: false, error: { status, code, message } });
  const page = (data: unknown[]) =>
    ok({
      page_info: { total_count: data.length, count: data.length, start_cursor: null, end_cursor: null },
      data,
    });
  const workflows = Object.entries(steps).map(([id, code]) => ({
    id,
    name: id === "p_big" ? "2,000-line step" : "20-line step",
    deployment_id: `d_${id}`,
    steps: [{ id: `c_${id}`, name: "work", code }],
    endpoint_url: `http://bench/e/${id}`,
    active: false,
    http_response: "immediate",
    created_at: 1_700_000_000,
    updated_at: 1_700_000_000,
    version: 1,
  }));
  const drafts = new Map<string, unknown>();

  let longTasks: number[] = [];
  let slowestKeyMs = 0;
  let saves: number[] = [];
  new PerformanceObserver((list) => {
    for (const e of list.getEntries()) longTasks.push(e.duration);
  }).observe({ type: "longtask", buffered: true });
  new PerformanceObserver((list) => {
    for (const e of list.getEntries())
      if (e.name.startsWith("key")) slowestKeyMs = Math.max(slowestKeyMs, e.duration);
  }).observe({ type: "event", durationThreshold: 16 } as PerformanceObserverInit);
  w.__bench = {
    reset: () => {
      longTasks = [];
      slowestKeyMs = 0;
      saves = [];
    },
    read: () => ({ longTasks: longTasks.slice(), slowestKeyMs, saves: saves.slice() }),
  };

  const find = (id: string) => workflows.find((x) => x.id === id);
  w.headwater = {
    hostInfo: () => ok({ mode: "web", version: "bench" }),
    getTheme: () => ok("light"),
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
    onStreamBatch: () => () => undefined,
    onStreamState: () => () => undefined,
    onRunBatch: () => () => undefined,
    watch: () => ok("w1"),
    watchRuns: () => ok("w2"),
    unwatch: () => ok(undefined),
    listMySources: () => page([]),
    listMyWorkflows: () => page(workflows),
    listMySubscriptions: () => ok([]),
    listTestRequests: () => ok([]),
    listWorkflowEvents: () => page([]),
    listWorkflowErrors: () => page([]),
    listWorkflowRuns: () => page([]),
    getWorkflowStats: () => ok({ bucket: "minute", series: [] }),
    getWorkflow: (id: string) => (find(id) ? ok(find(id)) : fail(404, "not_found", `no workflow ${id}`)),
    getWorkflowDraft: (id: string) =>
      drafts.has(id) ? ok(drafts.get(id)) : fail(404, "no_draft", "This workflow has no draft."),
    updateWorkflowDraft: (id: string, body: { steps: { name: string; code: string }[] }) => {
      saves.push(performance.now());
      const draft = {
        base_version: 1,
        updated_at: Math.floor(Date.now() / 1000),
        workflow: { ...find(id), steps: body.steps.map((s, i) => ({ id: `c_${i}`, ...s })) },
        problems: [],
      };
      drafts.set(id, draft);
      return ok(draft);
    },
  };
}
