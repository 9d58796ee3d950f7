/**
 * One request of the v1 API: the URL, the key, the body as JSON, the answer checked against its
 * schema. Each group of the client's methods (index.ts, workflow-building.ts, ...) is written
 * over a `Request`, so that an area of the API keeps its methods in a module of its own.
 */
import * as z from "../zod.js";
import { ApiError } from "./error.js";
import type { PageQuery } from "../resources/index.js";
import type { ClientOptions, FetchLike } from "./index.js";

export type Query = Record<string, string | number | boolean | undefined>;

export interface RequestOptions {
  query?: Query;
  body?: unknown;
  /**
   * At least this long for this request (one the server may hold longer than the client's limit:
   * a test run); a client without a limit keeps none.
   */
  timeoutMs?: number;
}

/** Sends a request; `schema` null: the answer has no body (204). */
export type Request = <T extends z.core.$ZodType>(
  method: string,
  path: string,
  schema: T | null,
  opts?: RequestOptions,
) => Promise<z.infer<T>>;

/** An answer's body: its JSON, or the text itself when it is not JSON; undefined when empty. */
function parseBody(text: string): unknown {
  if (text.length === 0) return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

export const Data = <T extends z.core.$ZodType>(item: T) => z.object({ data: item });
export const enc = encodeURIComponent;
/** A list's paging as a query. */
export const pageQuery = (q?: PageQuery): Query => ({
  limit: q?.limit,
  after: q?.after,
  before: q?.before,
});

export function makeRequester(baseUrl: string, options: ClientOptions): Request {
  const doFetch: FetchLike = options.fetch ?? globalThis.fetch.bind(globalThis);
  const timeoutMs = options.timeoutMs ?? 30_000;
  const validate = options.validate ?? true;

  return async function request<T extends z.core.$ZodType>(
    method: string,
    path: string,
    schema: T | null,
    opts: RequestOptions = {},
  ): Promise<z.infer<T>> {
    const url = new URL(baseUrl + path);
    for (const [k, v] of Object.entries(opts.query ?? {})) {
      if (v !== undefined) url.searchParams.set(k, String(v));
    }
    const headers: Record<string, string> = { Authorization: `Bearer ${options.apiKey}` };
    let body: string | undefined;
    if (opts.body !== undefined) {
      headers["Content-Type"] = "application/json";
      body = JSON.stringify(opts.body);
    }
    let res: Awaited<ReturnType<FetchLike>>;
    const waitMs = timeoutMs > 0 ? Math.max(timeoutMs, opts.timeoutMs ?? 0) : timeoutMs;
    try {
      res = await doFetch(url, {
        method,
        headers,
        body,
        ...(waitMs > 0 ? { signal: AbortSignal.timeout(waitMs) } : {}),
      });
    } catch (err) {
      const reason = err instanceof Error ? err.message : String(err);
      throw new ApiError(0, "network_error", `cannot reach ${url.origin}: ${reason}`);
    }
    const json = res.parsed ? res.parsed() : parseBody(await res.text());
    if (!res.ok) throw ApiError.fromBody(res.status, json);
    if (schema === null) return undefined as z.infer<T>;
    if (!validate) return json as z.infer<T>;
    const parsed = z.safeParse(schema, json);
    if (!parsed.success) {
      throw new ApiError(
        res.status,
        "unexpected_response",
        `unexpected response from ${method} ${path}: ${parsed.error.issues[0]?.message ?? "invalid"}`,
      );
    }
    return parsed.data;
  };
}
