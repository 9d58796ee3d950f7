/**
 * Identifiers, event ids and cursors. Runs in Node and in the browser: no Node-only imports.
 */

export const ID_PREFIX = {
  user: "u_",
  workflow: "p_",
  source: "dc_",
  component: "sc_",
  subscription: "sub_",
  autoSubscription: "asub_",
  deployment: "d_",
  cell: "c_",
  account: "apn_",
  run: "r_",
  dataStore: "ds_",
} as const;
export type IdKind = keyof typeof ID_PREFIX;

const ALPHABET = "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ";

/** A new id: the kind's prefix and 20 random base-62 characters (about 119 bits). */
export function newId(kind: IdKind): string {
  const bytes = new Uint8Array(20);
  globalThis.crypto.getRandomValues(bytes);
  let suffix = "";
  for (const b of bytes) suffix += ALPHABET[b % 62];
  return ID_PREFIX[kind] + suffix;
}

/**
 * The run id of a workflow's invocation job (decisions.md "Workflow runs"): `r_` and the job's
 * id without its dashes, so that a job has one run however often it starts, and run ids sort
 * by the time their job was queued.
 */
export function runIdOfJob(jobId: string): string {
  return ID_PREFIX.run + jobId.replace(/[^A-Za-z0-9]/g, "");
}

/**
 * The id of the job a run was queued as (runIdOfJob backwards: the job ids of newJobId and
 * jobIdAt are 15 digits, 6 digits and 6 letters or digits), or undefined for a run id of another
 * form (a re-run's or a dispatched run's job is named in the run's row instead).
 */
export function jobIdOfRun(runId: string): string | undefined {
  const m = /^r_(\d{15})(\d{6})([a-z0-9]{6})$/.exec(runId);
  return m ? `${m[1]}-${m[2]}-${m[3]}` : undefined;
}

/** True when `id` has the kind's prefix and a non-empty alphanumeric suffix. */
export function isId(kind: IdKind, id: string): boolean {
  const prefix = ID_PREFIX[kind];
  return id.startsWith(prefix) && /^[A-Za-z0-9]+$/.test(id.slice(prefix.length));
}

/** The kind of an emitter or listener id (`p_` workflow, `dc_` source), or undefined. */
export function emitterKind(id: string): "workflow" | "source" | undefined {
  if (id.startsWith(ID_PREFIX.workflow)) return "workflow";
  if (id.startsWith(ID_PREFIX.source)) return "source";
  return undefined;
}

// ---------------------------------------------------------------------------------------------
// Event ids: `<millisecond-timestamp>-<sequence>`, strictly increasing per emitter.

export interface EventId {
  ms: number;
  seq: number;
}

const EVENT_ID = /^(\d{1,15})-(\d{1,9})$/;

export function parseEventId(id: string): EventId | undefined {
  const m = EVENT_ID.exec(id);
  if (!m) return undefined;
  return { ms: Number(m[1]), seq: Number(m[2]) };
}

export function formatEventId(id: EventId): string {
  return `${id.ms}-${id.seq}`;
}

/** Orders two event ids: negative when a is older than b. Throws on a malformed id. */
export function compareEventIds(a: string, b: string): number {
  const pa = parseEventId(a);
  const pb = parseEventId(b);
  if (!pa || !pb) throw new Error(`not an event id: ${pa ? b : a}`);
  return pa.ms - pb.ms || pa.seq - pb.seq;
}

/**
 * The id that follows `last` for an emitter at time `nowMs`: a new millisecond restarts the
 * sequence at 0; the same (or an earlier, if the clock went back) millisecond bumps it.
 */
export function nextEventId(last: EventId | undefined, nowMs: number): EventId {
  if (!last || nowMs > last.ms) return { ms: nowMs, seq: 0 };
  return { ms: last.ms, seq: last.seq + 1 };
}

/**
 * A sortable fixed-width key for an event id (`000001700000000000-000000001`), so that string
 * order in a database index equals event order.
 */
export function eventSortKey(id: EventId): string {
  return `${String(id.ms).padStart(15, "0")}-${String(id.seq).padStart(9, "0")}`;
}

// ---------------------------------------------------------------------------------------------
// Cursors of resource lists: the unpadded base64url of the item id (decisions.md).

export function encodeCursor(itemId: string): string {
  const bytes = new TextEncoder().encode(itemId);
  let bin = "";
  for (const b of bytes) bin += String.fromCharCode(b);
  return btoa(bin).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

/** The item id behind a cursor, or undefined when the cursor is not one of ours. */
export function decodeCursor(cursor: string): string | undefined {
  if (!/^[A-Za-z0-9_-]+$/.test(cursor)) return undefined;
  try {
    const b64 = cursor.replace(/-/g, "+").replace(/_/g, "/");
    const bin = atob(b64 + "=".repeat((4 - (b64.length % 4)) % 4));
    const bytes = Uint8Array.from(bin, (c) => c.charCodeAt(0));
    const id = new TextDecoder("utf-8", { fatal: true }).decode(bytes);
    return /^[a-z]+_[A-Za-z0-9]+$/.test(id) ? id : undefined;
  } catch {
    return undefined;
  }
}

/** A URL-safe name slug: lower case, runs of other characters folded to "-". */
export function slugify(name: string): string {
  const slug = name
    .normalize("NFKD")
    .replace(/[\u0300-\u036f]/g, "")
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-+|-+$/g, "");
  return slug || "source";
}
