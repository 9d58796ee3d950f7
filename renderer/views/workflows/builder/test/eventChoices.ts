/**
 * The events a test can run on, read for the test panel:
 * - recent trigger events: the newest events of what the workflow listens to (its sources and
 *   workflows, as subscribed) and the events of its newest production runs (requests to its
 *   endpoint are kept only there), one entry per event, newest first. A workflow's own
 *   `event_summaries` are what it emitted, not what triggered it, so they are not among them.
 * - runs: its newest production and test runs, each with its event.
 * Every list asks for whole events (`expand=event`): the test sends the event it shows.
 */
import { useQuery } from "@tanstack/react-query";
import type { EventSummary, Run, Subscription } from "../../../../../shared/resources/index.js";
import { call } from "../../../../state/bridge.js";
import { formatWhen } from "../../../../state/format.js";
import { useEmitterNames, useSubscriptions } from "../../../../state/queries.js";
import { RUN_STATUS_LABELS, triggerText } from "../../runs/runText.js";

export interface EventOption {
  /** The option's value: `event:<emitter>:<id>` or `run:<id>`. */
  value: string;
  ms: number;
  label: string;
  event: unknown;
}

/** How many of each list the panel offers. */
export const RECENT_EVENTS = 20;
const PER_EMITTER = 10;
const MAX_EMITTERS = 5;
const RUNS = 20;
const TEST_RUNS = 10;

export const testEventsKey = (id: string) => ["workflow", id, "test-events"] as const;
export const testRunsKey = (id: string) => ["workflow", id, "test-runs"] as const;

/** A line of the event itself: its summary, a request's method, path and body, else the start of its JSON. */
export function preview(event: unknown, summary?: string): string {
  if (summary) return summary;
  const e = (event ?? {}) as { method?: unknown; path?: unknown; body?: unknown };
  const request = typeof e.method === "string" && typeof e.path === "string";
  const text = request
    ? `${e.method} ${e.path}${e.body !== undefined ? ` ${JSON.stringify(e.body)}` : ""}`
    : (JSON.stringify(event) ?? "");
  return text.length > 60 ? `${text.slice(0, 60)}…` : text;
}

/** The emitters a workflow listens to (not the `dc_*` / `p_*` globs), at most MAX_EMITTERS. */
export function listenedEmitters(subs: readonly Subscription[], workflowId: string): Subscription[] {
  return subs
    .filter((s) => s.listener_id === workflowId && !s.emitter_id.endsWith("_*"))
    .slice(0, MAX_EMITTERS);
}

async function emitterEvents(s: Subscription): Promise<EventSummary[]> {
  const q = {
    limit: PER_EMITTER,
    expand: "event" as const,
    ...(s.event_name ? { event_name: s.event_name } : {}),
  };
  const page = s.emitter_id.startsWith("p_")
    ? await call("listWorkflowEvents", s.emitter_id, q)
    : await call("listSourceEvents", s.emitter_id, q);
  return page.data;
}

/** Recent trigger events, newest first, each event once (a run of a source's event is that event). */
export function mergeRecent(
  events: readonly EventSummary[],
  runs: readonly Run[],
  names: ReadonlyMap<string, string>,
  now = Date.now(),
): EventOption[] {
  const seen = new Set<string>();
  const out: EventOption[] = [];
  for (const e of events) {
    const emitter = e.metadata.emitter_id;
    const value = `event:${emitter}:${e.id}`;
    if (seen.has(value)) continue;
    seen.add(value);
    const from = names.get(emitter) ?? emitter;
    out.push({
      value,
      ms: e.indexed_at_ms,
      event: e.event,
      label: `${formatWhen(e.indexed_at_ms, now)} · ${from} · ${preview(e.event, e.metadata.summary)}`,
    });
  }
  for (const r of runs) {
    const t = r.trigger;
    const value = t.emitter_id && t.event_id ? `event:${t.emitter_id}:${t.event_id}` : `run:${r.id}`;
    if (seen.has(value) || t.type === "RERUN") continue;
    seen.add(value);
    const ms = r.started_at_ms ?? 0;
    out.push({
      value,
      ms,
      event: r.event,
      label: `${formatWhen(ms, now)} · ${triggerText(r, names)} · ${preview(r.event)}`,
    });
  }
  return out.sort((a, b) => b.ms - a.ms).slice(0, RECENT_EVENTS);
}

export function runOptions(runs: readonly Run[], now = Date.now()): EventOption[] {
  return runs
    .map((r) => {
      const ms = r.started_at_ms ?? 0;
      const kind = r.test ? "Test run" : triggerText(r);
      return {
        value: `run:${r.id}`,
        ms,
        event: r.event,
        label: `${formatWhen(ms, now)} · ${kind} · ${RUN_STATUS_LABELS[r.status]} · ${r.id}`,
      };
    })
    .sort((a, b) => b.ms - a.ms);
}

/** Both lists for the panel; each waits for its own answers. */
export function useEventOptions(workflowId: string) {
  const subs = useSubscriptions();
  const names = useEmitterNames();
  const emitters = listenedEmitters(subs.data ?? [], workflowId);
  const production = useQuery({
    queryKey: [...testEventsKey(workflowId), "runs"],
    queryFn: async () => (await call("listWorkflowRuns", workflowId, { limit: RUNS, expand: "event" })).data,
  });
  const tests = useQuery({
    queryKey: testRunsKey(workflowId),
    queryFn: async () =>
      (await call("listWorkflowRuns", workflowId, { limit: TEST_RUNS, expand: "event", test: true })).data,
  });
  const listened = useQuery({
    queryKey: [
      ...testEventsKey(workflowId),
      "emitters",
      emitters.map((s) => `${s.emitter_id}/${s.event_name ?? ""}`),
    ],
    queryFn: async () => (await Promise.all(emitters.map(emitterEvents))).flat(),
    enabled: subs.isSuccess,
  });
  const loading = production.isPending || subs.isPending || (subs.isSuccess && listened.isPending);
  return {
    loading,
    error: production.error ?? listened.error ?? tests.error ?? null,
    recent: loading ? [] : mergeRecent(listened.data ?? [], production.data ?? [], names),
    runs: runOptions([...(production.data ?? []), ...(tests.data ?? [])]),
  };
}
