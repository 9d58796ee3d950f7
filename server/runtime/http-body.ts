/**
 * An endpoint request's body, kept once in its queued job: `bodyRaw`, the text as received
 * (triggers/http.ts `httpEventOf` makes the event without `body`). `body`, the parsed form the
 * component sees (JSON and form bodies parsed, anything else the text), is made from it when the
 * job runs (`runnableHttpEvent`, called by the queue), not when the request arrives.
 *
 * Why: the job's payload held the body twice (the raw text, escaped, and the parsed value), and
 * the request's acknowledgement paid for parsing it and for serialising both: about a tenth of
 * the server's own time on an endpoint's load in a profile (26 Nov), twice the bytes in the jobs
 * table (and its WAL) for a large webhook. Parsing when the job runs is the same work, off the
 * acknowledgement's path; the event the run sees, and every event stored from it, is unchanged.
 * A job queued by an older build, its `body` stored, keeps it.
 */

/** JSON and form bodies parsed; anything else is the raw text. */
export function parseBody(contentType: string | undefined, raw: string): unknown {
  const type = (contentType ?? "").split(";")[0]!.trim().toLowerCase();
  if (raw === "") return "";
  if (type === "application/json" || type.endsWith("+json")) {
    try {
      return JSON.parse(raw);
    } catch {
      return raw;
    }
  }
  if (type === "application/x-www-form-urlencoded") {
    const out: Record<string, string | string[]> = {};
    for (const [k, v] of new URLSearchParams(raw)) {
      const prev = out[k];
      out[k] = prev === undefined ? v : Array.isArray(prev) ? [...prev, v] : [prev, v];
    }
    return out;
  }
  return raw;
}

interface StoredHttpEvent {
  headers?: Record<string, string>;
  bodyRaw?: unknown;
  body?: unknown;
}

const isEvent = (event: unknown): event is StoredHttpEvent =>
  typeof event === "object" && event !== null && !Array.isArray(event);

/** The event of an `http` job as its run sees it: `body` parsed from `bodyRaw` (last, as it was made). */
export function runnableHttpEvent(event: unknown): unknown {
  if (!isEvent(event) || typeof event.bodyRaw !== "string" || "body" in event) return event;
  return { ...event, body: parseBody(event.headers?.["content-type"], event.bodyRaw) };
}
