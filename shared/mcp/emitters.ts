/**
 * Sources and workflows as the tools name them: an id (`dc_...`, `p_...`) or a name, resolved
 * through the key's own lists (so another user's resource is as unknown as a missing one), and
 * events shaped for a model: each event's data cut at 4 KB in lists.
 */
import { pages, type Client } from "../client/index.js";
import { ID_PREFIX } from "../ids.js";
import { EVENT_JSON_BYTES, type EventSummary, type Source, type Workflow } from "../resources/index.js";
import { byteLength, McpRefusal, sliceBytes } from "./results.js";

/** Largest event data a list shows whole, in bytes of JSON. */
export const EVENT_DATA_LIMIT = 4 * 1024;

export type EmitterKind = "source" | "workflow";

export interface Emitter {
  kind: EmitterKind;
  id: string;
}

const SOURCE_ID = /^dc_[A-Za-z0-9]+$/;
const WORKFLOW_ID = /^p_[A-Za-z0-9]+$/;

export const kindOfId = (id: string): EmitterKind | undefined =>
  SOURCE_ID.test(id) ? "source" : WORKFLOW_ID.test(id) ? "workflow" : undefined;

const notFound = (what: string) => new McpRefusal("not_found", `${what} not found`, 404);

/** Every source of the key's user (few requests: pages of 100). */
async function allSources(client: Client): Promise<Source[]> {
  const out: Source[] = [];
  for await (const s of pages((q) => client.listMySources(q))) out.push(s);
  return out;
}

async function allWorkflows(client: Client): Promise<Workflow[]> {
  const out: Workflow[] = [];
  for await (const w of pages((q) => client.listMyWorkflows(q))) out.push(w);
  return out;
}

function pickOne<T extends { id: string }>(ref: string, matches: T[], what: string): T {
  if (matches.length === 1) return matches[0]!;
  if (matches.length === 0) throw notFound(`${what} ${ref}`);
  const ids = matches.slice(0, 5).map((m) => m.id).join(", ");
  throw new McpRefusal("ambiguous_name", `${ref} names ${matches.length} ${what}s (${ids}): use an id`, 409);
}

/** A source by id, or by name (or name slug). */
export async function resolveSource(client: Client, ref: string): Promise<Source> {
  if (SOURCE_ID.test(ref)) return client.getSource(ref);
  return pickOne(ref, (await allSources(client)).filter((s) => s.name === ref || s.name_slug === ref), "source");
}

/** A source or workflow by id, or the name of either. */
export async function resolveEmitter(client: Client, ref: string): Promise<Emitter> {
  const kind = kindOfId(ref);
  if (kind) return { kind, id: ref };
  if (ref.startsWith(ID_PREFIX.source) || ref.startsWith(ID_PREFIX.workflow)) throw notFound(`source or workflow ${ref}`);
  const [sources, workflows] = await Promise.all([allSources(client), allWorkflows(client)]);
  const matches = [
    ...sources.filter((s) => s.name === ref || s.name_slug === ref).map((s) => ({ id: s.id, kind: "source" as const })),
    ...workflows.filter((w) => w.name === ref).map((w) => ({ id: w.id, kind: "workflow" as const })),
  ];
  return pickOne(ref, matches, "source or workflow");
}

/**
 * A workflow by id, or by name. A source's id is refused as such (runs are a workflow's); an id
 * of another user's workflow is left to REST, which answers it as unknown.
 */
export async function resolveWorkflowId(client: Client, ref: string): Promise<string> {
  const kind = kindOfId(ref);
  if (kind === "workflow") return ref;
  if (kind === "source") throw new McpRefusal("bad_request", `${ref} is a source: runs belong to workflows (p_...)`);
  if (ref.startsWith(ID_PREFIX.workflow)) throw notFound(`workflow ${ref}`);
  return pickOne(ref, (await allWorkflows(client)).filter((w) => w.name === ref), "workflow").id;
}

/** Resolves when the key's user may read `e` (a 404 refusal otherwise: someone else's is unknown). */
export async function requireReadable(client: Client, e: Emitter): Promise<void> {
  try {
    if (e.kind === "source") await client.getSource(e.id);
    else await client.getWorkflow(e.id);
  } catch (err) {
    if ((err as { status?: number }).status === 404) throw notFound(`${e.kind} ${e.id}`);
    throw err;
  }
}

/** Completions of a prompt argument or template variable: the user's ids (or names) starting with `typed`. */
export async function completeIds(client: Client, kind: EmitterKind, typed: string, by: "id" | "name" = "id"): Promise<string[]> {
  try {
    const page = kind === "source" ? await client.listMySources({ limit: 100 }) : await client.listMyWorkflows({ limit: 100 });
    const values = page.data.map((item) => (by === "name" ? item.name : item.id));
    return [...new Set(values)].filter((v) => v.startsWith(typed)).slice(0, 100);
  } catch {
    return []; // a completion is a hint: no list, no hint
  }
}

/** The channel as REST names it: `default` (or absent) is the default channel `""`. */
export const channelOf = (channel: string | undefined) => (channel === undefined || channel === "default" ? "" : channel);

/** An event for a list: data over EVENT_DATA_LIMIT replaced by a preview, as REST's summaries do at 1 KB. */
export function cutEvent(item: EventSummary, limit = EVENT_DATA_LIMIT): EventSummary & { truncated?: boolean } {
  const meta = item.metadata as { truncated?: boolean };
  const alreadyCut = meta.truncated === true;
  const known = (item as { [EVENT_JSON_BYTES]?: number })[EVENT_JSON_BYTES];
  if (known !== undefined && known <= limit && !alreadyCut) return item;
  const json = JSON.stringify(item.event) ?? "null";
  if (json.length * 3 <= limit && !alreadyCut) return item;
  const size = byteLength(json);
  if (size <= limit && !alreadyCut) return item;
  if (alreadyCut) return { ...item, truncated: true };
  return { ...item, event: { truncated: true, size, preview: sliceBytes(json, limit) }, truncated: true };
}

/** The HTTP endpoint a source hands out (its `$.interface.http` prop), if any. */
export function endpointOfSource(source: Source): string | undefined {
  for (const v of Object.values(source.configured_props)) {
    const url = (v as { endpoint_url?: unknown } | null)?.endpoint_url;
    if (typeof url === "string") return url;
  }
  return undefined;
}

/** The resource URI of an emitter, and of its events. */
export const resourceUri = (e: Emitter) => `headwater://${e.kind}s/${e.id}`;
export const eventsUri = (e: Emitter) => `${resourceUri(e)}/events`;

/** The emitter of an events resource URI, or undefined. */
export function emitterOfEventsUri(uri: string): Emitter | undefined {
  const m = /^headwater:\/\/(sources|workflows)\/([A-Za-z0-9_]+)\/events$/.exec(uri);
  if (!m) return undefined;
  const kind = m[1] === "sources" ? "source" : "workflow";
  return kindOfId(m[2]!) === kind ? { kind, id: m[2]! } : undefined;
}
