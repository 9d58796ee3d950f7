/**
 * A workflow's execution controls (decisions.md "Execution controls"): the stored form, the
 * resource's, how an update merges into them, and the arithmetic of retries. How they act on
 * the queue is dispatch.ts's; the runner asks `retryDelayMs` when a run fails.
 */
import type { RetryPolicy, Throttle, UpdateWorkflowBody } from "../../shared/resources/index.js";
import { CONTROL_LIMITS } from "../../shared/resources/index.js";

export interface Controls {
  retry: RetryPolicy;
  concurrency: number;
  throttle: Throttle | null;
}

export const DEFAULT_RETRY: RetryPolicy = {
  max_attempts: CONTROL_LIMITS.maxAttempts.default,
  initial_delay_seconds: CONTROL_LIMITS.initialDelaySeconds.default,
  max_delay_seconds: CONTROL_LIMITS.maxDelaySeconds.default,
};

/** A workflow row's controls (`controls_json`, NULL for the defaults). */
export function controlsOf(json: string | null | undefined): Controls {
  const stored = (json ? JSON.parse(json) : {}) as Partial<Controls>;
  return {
    retry: { ...DEFAULT_RETRY, ...stored.retry },
    concurrency: stored.concurrency ?? CONTROL_LIMITS.concurrency.default,
    throttle: stored.throttle ?? null,
  };
}

/** The controls after a create or update body: only the fields it names change. */
export function mergeControls(
  current: Controls,
  body: Pick<UpdateWorkflowBody, "retry" | "concurrency" | "throttle">,
): Controls {
  return {
    retry: body.retry ? { ...current.retry, ...definedOf(body.retry) } : current.retry,
    concurrency: body.concurrency ?? current.concurrency,
    throttle: body.throttle === undefined ? current.throttle : body.throttle,
  };
}

const definedOf = <T extends object>(o: T): Partial<T> =>
  Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as Partial<T>;

/** Whether runs of this workflow go through the dispatcher (dispatch.ts) rather than straight to their steps. */
export const dispatched = (c: Controls): boolean => c.concurrency > 1 || c.throttle !== null;

/**
 * The wait before attempt `attempt + 1` after attempt `attempt` failed: the initial delay doubled
 * per attempt, with a jitter of at most 20 % either way, never past the maximum.
 */
export function retryDelayMs(
  policy: RetryPolicy,
  attempt: number,
  random: () => number = Math.random,
): number {
  const base = Math.min(policy.max_delay_seconds, policy.initial_delay_seconds * 2 ** (attempt - 1)) * 1000;
  const jittered = base * (0.8 + 0.4 * random());
  return Math.max(1, Math.round(Math.min(policy.max_delay_seconds * 1000, jittered)));
}
