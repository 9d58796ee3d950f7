/** Helpers of the delivery and workflow tests. */
import type { Client } from "../../shared/client/index.js";
import type { EventSummary } from "../../shared/resources/index.js";

/** A workflow step: `export default defineComponent({ async run({ steps, $ }) { <body> } })`. */
export const step = (body: string) => `export default defineComponent({ async run({ steps, $ }) { ${body} } });`;

/** A source that emits, for each event it is triggered with, the event with its hop mark. */
export const relaySource = (key: string) => `
export default {
  key: "${key}",
  name: "Relay",
  version: "0.0.1",
  props: { http: "$.interface.http" },
  async run(event) { this.$emit(event && event.body !== undefined ? event.body : { relayed: event }); },
};
`;

type Lister = (q: { limit: number; expand: "event"; event_name?: string }) => Promise<{ data: EventSummary[] }>;

/** Polls a list until `count` items (oldest first), or fails with what it saw. */
export async function waitForList(list: Lister, count: number, channel?: string, withinMs = 30_000): Promise<EventSummary[]> {
  const deadline = Date.now() + withinMs;
  let seen: EventSummary[] = [];
  while (Date.now() < deadline) {
    const q = { limit: 100, expand: "event" as const, ...(channel !== undefined ? { event_name: channel } : {}) };
    seen = [...(await list(q)).data].reverse();
    if (seen.length >= count) return seen;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`expected ${count} events, saw ${seen.length}: ${JSON.stringify(seen.map((e) => e.event)).slice(0, 1500)}`);
}

export const sourceEvents = (c: Client, id: string, channel?: string) => (q: Parameters<Lister>[0]) =>
  c.listSourceEvents(id, { ...q, ...(channel !== undefined ? { event_name: channel } : {}) });
export const workflowEvents = (c: Client, id: string) => (q: Parameters<Lister>[0]) => c.listWorkflowEvents(id, q);
export const workflowErrors = (c: Client, id: string) => (q: Parameters<Lister>[0]) =>
  c.listWorkflowErrors(id, { limit: q.limit, expand: q.expand });

/** POSTs JSON to an endpoint URL; returns the status. */
export async function post(url: string, body: unknown): Promise<number> {
  const res = await fetch(url, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
  await res.text();
  return res.status;
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
