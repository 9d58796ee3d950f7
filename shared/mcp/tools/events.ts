/**
 * Tools over events of a source or workflow: list and search, read one whole, wait for new ones,
 * replay to listeners, delete, and volume stats. Lists show each event's data cut at 4 KB.
 */
import { z } from "zod";
import type { Client } from "../../client/index.js";
import { parseEventId } from "../../ids.js";
import type { EventListQuery, EventSummary, StatsPoint } from "../../resources/index.js";
import { channelOf, cutEvent, resolveEmitter, type Emitter } from "../emitters.js";
import { McpRefusal } from "../results.js";
import { EventOut, StatsPointOut } from "../schemas.js";
import { waitForEvents } from "../streams.js";
import { CHANGE, DESTROY, READ, tool } from "./define.js";

const EventId = z.string().regex(/^\d{1,15}-\d{1,9}$/, "an event id looks like 1700000000000-0");
const EmitterRef = z.string().min(1).max(200).describe("source id (dc_...), workflow id (p_...), or the name of either");
const Channel = z
  .string()
  .max(128)
  .regex(/^\$?[A-Za-z0-9_.:-]*$/, "not a channel name")
  .optional()
  .describe("the channel: `default` (what it emits; the default), `$errors`, `$logs`, or a named channel");

const list = (client: Client, e: Emitter, q: EventListQuery) =>
  e.kind === "source" ? client.listSourceEvents(e.id, q) : client.listWorkflowEvents(e.id, q);

export const listEvents = tool({
  name: "list_events",
  title: "List or search events",
  description:
    "The latest events of a source or workflow, newest first, on one channel (default: what it emits; `$errors` and `$logs` hold its failures and console output). `q` keeps only events whose data or summary contains the text (case-insensitive). Each event's data over 4 KB is cut (`truncated: true`): get_event gives it whole. Page on with `cursor`.",
  input: {
    id: EmitterRef,
    channel: Channel,
    q: z.string().max(256).optional().describe("text the event's data or summary contains"),
    limit: z.number().int().min(1).max(100).default(20).describe("events per page, 1 to 100 (default 20)"),
    cursor: EventId.optional().describe("`next_cursor` of the previous page: continues with older events"),
  },
  output: { id: z.string(), channel: z.string(), events: z.array(EventOut), next_cursor: z.string().nullable(), total_count: z.number() },
  annotations: READ,
  list: { listKey: "events", cursorAfter: (e) => (e as EventSummary).id },
  run: async (a, { deps }) => {
    const e = await resolveEmitter(deps.client, a.id);
    const channel = channelOf(a.channel);
    const page = await list(deps.client, e, { expand: "event", event_name: channel, q: a.q, limit: a.limit, after: a.cursor });
    const events = page.data.map((ev) => cutEvent(ev));
    const next = page.data.length >= a.limit ? (page.data[page.data.length - 1]?.id ?? null) : null;
    return { id: e.id, channel: channel || "default", events, next_cursor: next, total_count: page.page_info.total_count };
  },
});

/** The id just above `id`: listing `after` it starts at `id` itself (lists are newest first). */
function justAbove(id: string): string {
  const p = parseEventId(id)!;
  return p.seq < 999_999_999 ? `${p.ms}-${p.seq + 1}` : `${p.ms + 1}-0`;
}

export const getEvent = tool({
  name: "get_event",
  title: "Get one event",
  description:
    "One event of a source or workflow by its id, whole (its data uncut, up to the 64 KB limit of any answer). Without `channel` it is looked for on the default channel, then $errors, then $logs.",
  input: { id: EmitterRef, event_id: EventId.describe("the event's id"), channel: Channel },
  output: { id: z.string(), channel: z.string(), event: EventOut },
  annotations: READ,
  run: async (a, { deps }) => {
    const e = await resolveEmitter(deps.client, a.id);
    const channels = a.channel !== undefined ? [channelOf(a.channel)] : ["", "$errors", "$logs"];
    for (const channel of channels) {
      const page = await list(deps.client, e, { expand: "event", event_name: channel, limit: 1, after: justAbove(a.event_id) });
      const found = page.data[0];
      if (found?.id === a.event_id) return { id: e.id, channel: channel || "default", event: found };
    }
    throw new McpRefusal("not_found", `event ${a.event_id} of ${e.id} not found (events past the retention are gone)`, 404);
  },
});

export const waitForEventsTool = tool({
  name: "wait_for_events",
  title: "Wait for new events",
  description:
    "Waits until a source or workflow emits, and answers as soon as at least one event newer than `after_event_id` is stored (or, without it, newer than its latest event now), with the new events (data cut at 4 KB); answers with none and timed_out: true after timeout_seconds. Use it after send_test_event or a deploy instead of calling list_events in a loop.",
  input: {
    id: EmitterRef,
    after_event_id: EventId.optional().describe("answer with events after this one (default: the latest now)"),
    timeout_seconds: z.number().int().min(1).max(60).default(30).describe("1 to 60 (default 30)"),
    max: z.number().int().min(1).max(100).default(20).describe("most events in the answer (default 20)"),
  },
  output: { id: z.string(), events: z.array(EventOut), timed_out: z.boolean(), last_event_id: z.string().nullable() },
  annotations: READ,
  list: { listKey: "events", cursorKey: "last_event_id", cursorAfter: (e) => (e as EventSummary).id },
  run: async (a, { deps, signal }) => {
    const e = await resolveEmitter(deps.client, a.id);
    let after = a.after_event_id;
    if (after === undefined) {
      // The latest event now (or "0-0": every event stored from here on is newer).
      const latest = await list(deps.client, e, { limit: 1 });
      after = latest.data[0]?.id ?? "0-0";
    }
    const got = await waitForEvents(deps, e, after, { timeoutMs: a.timeout_seconds * 1000, max: a.max, signal });
    const events = got.events.map((ev) => cutEvent(ev));
    return { id: e.id, events, timed_out: got.timed_out, last_event_id: events[events.length - 1]?.id ?? after };
  },
});

const Range = {
  start_id: EventId.optional().describe("first event of the range, inclusive (default: the oldest retained)"),
  end_id: EventId.optional().describe("last event of the range, inclusive (default: the newest)"),
  channel: Channel,
};

export const replayEvents = tool({
  name: "replay_events",
  title: "Replay events to listeners",
  description:
    "Delivers a source's or workflow's retained events again (start_id..end_id of one channel, inclusive; every retained event by default), in order, to each current listener of that channel, or to listener_id only: same ids and data as the first time. Listeners run again (quotas apply). Answers how many events and deliveries were queued.",
  input: { id: EmitterRef, ...Range, listener_id: z.string().min(1).max(200).optional().describe("only this listener (one of the channel's)") },
  output: { id: z.string(), events: z.number(), deliveries: z.number() },
  annotations: { ...CHANGE, idempotentHint: false },
  run: async (a, { deps }) => {
    const e = await resolveEmitter(deps.client, a.id);
    const body = { start_id: a.start_id, end_id: a.end_id, event_name: channelOf(a.channel), listener_id: a.listener_id };
    const r = e.kind === "source" ? await deps.client.replaySourceEvents(e.id, body) : await deps.client.replayWorkflowEvents(e.id, body);
    return { id: e.id, ...r };
  },
});

export const deleteEvents = tool({
  name: "delete_events",
  title: "Delete events",
  description:
    "Deletes a source's events from start_id to end_id, inclusive, on one channel (both absent: every event of the channel). Cannot be undone. Only sources' events can be deleted.",
  input: { id: z.string().min(1).max(200).describe("source id (dc_...) or name"), ...Range },
  output: { id: z.string(), accepted: z.boolean() },
  annotations: DESTROY,
  run: async (a, { deps }) => {
    const e = await resolveEmitter(deps.client, a.id);
    if (e.kind !== "source") throw new McpRefusal("bad_request", "only a source's events can be deleted, not a workflow's");
    const r = await deps.client.deleteSourceEvents(e.id, { start_id: a.start_id, end_id: a.end_id, event_name: channelOf(a.channel) });
    return { id: e.id, accepted: r.accepted };
  },
});

/** Most points an answer lists; more (a month by minute) is said, and the zeros dropped first. */
const MAX_POINTS = 500;

export const eventStats = tool({
  name: "event_stats",
  title: "Event and run statistics",
  description:
    "Per-bucket counts of a source or workflow, oldest first: events emitted, errors ($errors), logs ($logs), invocations (runs) and compute_ms, plus the totals. Default window: the last hour by minute. Use bucket hour or day for longer windows.",
  input: {
    id: EmitterRef,
    since: z.number().int().min(0).optional().describe("window start, ms since the epoch (default: until minus one hour)"),
    until: z.number().int().min(0).optional().describe("window end, ms since the epoch (default: now)"),
    bucket: z.enum(["minute", "hour", "day"]).optional().describe("bucket size (default minute)"),
  },
  output: {
    id: z.string(),
    bucket: z.string(),
    totals: StatsPointOut.omit({ t: true }),
    series: z.array(StatsPointOut),
  },
  annotations: READ,
  run: async (a, { deps }) => {
    const e = await resolveEmitter(deps.client, a.id);
    const q = { since: a.since, until: a.until, bucket: a.bucket };
    const stats = e.kind === "source" ? await deps.client.getSourceStats(e.id, q) : await deps.client.getWorkflowStats(e.id, q);
    const totals = { events: 0, errors: 0, logs: 0, invocations: 0, compute_ms: 0 };
    for (const p of stats.series) for (const k of Object.keys(totals) as Array<keyof typeof totals>) totals[k] += p[k];
    let series: StatsPoint[] = stats.series;
    let note: string | undefined;
    if (series.length > MAX_POINTS) {
      series = series.filter((p) => p.events + p.errors + p.logs + p.invocations > 0);
      note = `${stats.series.length} buckets: only those with activity are listed`;
      if (series.length > MAX_POINTS) {
        series = series.slice(-MAX_POINTS);
        note += `, the newest ${MAX_POINTS} of them (use a larger bucket)`;
      }
    }
    return { id: e.id, bucket: stats.bucket, totals, series, ...(note ? { truncated: true, note } : {}) };
  },
});
