/**
 * One forwarding attempt of `listen --forward-to` as one line: clock time, event id, the request
 * as it reached the target (method, path and query), then the status and how long it took, and
 * what happens next when it failed. `--json` gets the same facts as one object.
 */
import type { Attempt } from "../follow/forwarder.js";
import type { Style } from "./style.js";
import { clockTime } from "./time.js";

export function forwardLine(a: Attempt, retries: number, style: Style, now = Date.now()): string {
  const target = `${a.request.method} ${a.request.url.pathname}${a.request.url.search}`;
  const answer =
    "status" in a.result
      ? (a.result.status < 300 ? style.green : a.result.status < 500 ? style.yellow : style.red)(String(a.result.status))
      : style.red(a.result.error);
  let tail = "";
  if (a.outcome === "retrying") {
    tail = style.yellow(`, retrying in ${seconds(a.retryInMs ?? 0)} (retry ${a.attempt} of ${retries})`);
  } else if (a.outcome === "gave_up") {
    tail = style.red(retries > 0 ? `, gave up after ${retries} ${retries === 1 ? "retry" : "retries"}: not delivered` : ", not delivered (--retries 0)");
  } else if (a.attempt > 1) {
    tail = ` (after ${a.attempt - 1} ${a.attempt === 2 ? "retry" : "retries"})`;
  }
  return `${style.dim(clockTime(now))} ${style.dim(a.event.id)} ${target} -> ${answer} ${style.dim(`${a.result.ms} ms`)}${tail}`;
}

export function forwardJson(a: Attempt, now = Date.now()): Record<string, unknown> {
  return {
    time: new Date(now).toISOString(),
    id: a.event.id,
    method: a.request.method,
    url: a.request.url.toString(),
    status: "status" in a.result ? a.result.status : null,
    ...("error" in a.result ? { error: a.result.error } : {}),
    ms: a.result.ms,
    attempt: a.attempt,
    outcome: a.outcome,
    ...(a.retryInMs !== undefined ? { retry_in_ms: a.retryInMs } : {}),
  };
}

const seconds = (ms: number) => (ms < 1000 ? `${(ms / 1000).toFixed(1)} s` : `${Math.round(ms / 1000)} s`);
