/**
 * Where a worker's data store call belongs (data-stores/once.ts): a request that serves runs (a
 * workflow run's steps, a source's queued runs) says which run each `item` the worker tags its
 * calls with is, and the host numbers each item's writes in the order they arrive, which is the
 * order the code made them. Together: a write's call key, the same when a crash makes the run
 * run again.
 */

/** The run attempt a request serves: its data store writes are made once (data-stores/once.ts). */
export interface CallRun {
  /** A workflow run's id; a source's run: its job's. */
  runId: string;
  /** As a workflow's retry policy counts them: a crash re-run is the same attempt. */
  attempt: number;
}

/** Where a call of a request's run belongs: the run, and the step making it (a source's run: 0). */
export interface CallOrigin extends CallRun {
  step: number;
}

/** Where a call belongs, and the number of its run's step's next write (its place, from 1). */
export interface CallContext extends CallOrigin {
  nextWrite(): number;
}

/**
 * A request's calls: their origins, by the `item` the worker tags each with (a step, a batch's
 * run), and the writes made so far by item (the caller reads it after: which items wrote).
 */
export interface RequestCalls {
  origin: (item: number) => CallOrigin | undefined;
  writes: Map<number, number>;
}

/** The context of a call tagged `item` in a request with these calls; none outside a run. */
export function callContext(calls: RequestCalls | undefined, item: unknown): CallContext | undefined {
  if (!calls || typeof item !== "number") return undefined;
  const origin = calls.origin(item);
  if (!origin) return undefined;
  const writes = calls.writes;
  return {
    ...origin,
    nextWrite: () => {
      const n = (writes.get(item) ?? 0) + 1;
      writes.set(item, n);
      return n;
    },
  };
}
