/**
 * Reconnect delays: exponential, capped, with jitter so that many clients cut off at once
 * (a server restart) do not all come back in the same instant.
 */
export interface BackoffOptions {
  /** First delay in ms (default 500). */
  initialMs?: number;
  /** Largest delay in ms (default 30 s). */
  maxMs?: number;
  /** Growth per attempt (default 2). */
  factor?: number;
  /** Fraction of the delay that is random, 0..1 (default 0.5: a delay is 50-100 % of the base). */
  jitter?: number;
  random?: () => number;
}

/** The delay before reconnect attempt `attempt` (0 for the first retry). */
export function backoffDelay(attempt: number, opts: BackoffOptions = {}): number {
  const initial = opts.initialMs ?? 500;
  const max = opts.maxMs ?? 30_000;
  const factor = opts.factor ?? 2;
  const jitter = Math.min(1, Math.max(0, opts.jitter ?? 0.5));
  const random = opts.random ?? Math.random;
  const base = Math.min(max, initial * factor ** Math.min(attempt, 30));
  return Math.round(base * (1 - jitter) + base * jitter * random());
}
