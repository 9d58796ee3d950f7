/**
 * Answering a workflow's HTTP caller (decisions.md "Answering the HTTP caller"): with
 * `http_response: "workflow"` the request waits for the run's first `$.respond`, sent while the
 * run goes on; a run that ends without one answers 204 if it ended well, 502 `workflow_error`
 * if it failed (never the error's text), 202 if it waits to go on (`$.flow.delay`); the trigger answers 504 when nothing came in time. The
 * waiting request may be on another instance: Responders (runtime/triggers/http.ts) relay it.
 */
import type { RunResponse, RunStatus } from "../../../shared/resources/index.js";

export interface CallerAnswers {
  /** Answers the waiting caller (the first answer wins). */
  respond(key: string | undefined, response: RunResponse): void;
  /** The run is done with the caller: one still waiting is released. */
  finish(key: string | undefined): void;
  /** What a caller is answered when the run ended without `$.respond`. */
  unanswered(runId: string, status: RunStatus): RunResponse;
}

/** What `$.respond` gave (sandbox/steps.cjs made it JSON), as the caller gets it. */
export function responseOf(given: unknown): RunResponse {
  const r = (given && typeof given === "object" ? given : {}) as {
    status?: unknown;
    headers?: unknown;
    body?: unknown;
  };
  const status = r.status === undefined ? 200 : Number(r.status);
  if (!Number.isInteger(status) || status < 100 || status > 599) {
    return {
      status: 500,
      headers: {},
      body: {
        error: `the workflow answered with an invalid HTTP status: ${String(r.status).slice(0, 40)}`,
        code: "invalid_response",
      },
    };
  }
  const headers: Record<string, string> = {};
  if (r.headers && typeof r.headers === "object") {
    for (const [k, v] of Object.entries(r.headers as Record<string, unknown>)) {
      // A header name or value that HTTP cannot carry would fail the answer: left out.
      if (/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(k) && typeof v === "string" && !/[\r\n\0]/.test(v))
        headers[k.toLowerCase()] = v;
    }
  }
  return { status, headers, body: r.body === undefined ? null : r.body };
}

export function callerAnswers(responders: {
  respond(key: string | undefined, r: RunResponse): void;
  finish(key: string | undefined): void;
}): CallerAnswers {
  return {
    respond: (key, r) => responders.respond(key, r),
    finish: (key) => responders.finish(key),
    unanswered: (runId, status) => {
      if (status === "success" || status === "exited") return { status: 204, headers: {}, body: null };
      // It waits to go on (`$.flow.delay`) longer than a caller can wait: accepted, not answered.
      if (status === "delayed") return { status: 202, headers: {}, body: { run_id: runId, status } };
      return {
        status: 502,
        headers: {},
        body: { error: "the workflow failed before it responded", code: "workflow_error", run_id: runId },
      };
    },
  };
}
