/**
 * `this.$emit(event, { delivery_ts })`: an event delivered later. The vendor's scheduled-tasks
 * source emits with a future `delivery_ts` and expects the event to appear on its channel at
 * that time, not before.
 *
 * Such an emit is a job of the queue, not an event yet: the invoker puts it in its run's
 * completion (`JobCompletion.delayed`), so it is inserted in the transaction that deletes the
 * run's job and stores its other results (a retried run never holds it twice, a run whose
 * results are stored never loses it). The job waits in the jobs table until `delivery_ts`
 * (`run_after`), under a target of its own per source (`de_<source id>`: it never holds back the
 * source's runs, and deleting the source drops it). Its ids sort by due time, so the first due
 * is at the head of that target. When due, the queue hands it to `handleDelayedJobs`, which
 * stores the event (as the source's event, on the channel it was emitted to) with the job's
 * deletion in one `EventStore.commit`: delivered exactly once, like any job's results.
 */
import type { EmitInput, EventStore } from "../services.js";
import type { NewJob } from "../store/repos/jobs.js";
import type { RuntimeCatalog } from "./catalog.js";
import { PlatformFailure, platformStep } from "./platform-failure.js";
import type { BatchOutcome, QueuedJob } from "./queue-jobs.js";

/** The queue's target prefix of held emits. */
export const DELAYED_PREFIX = "de_";
/**
 * The latest `delivery_ts` held (about the year 33658): a job id has fifteen digits of due time
 * (store/repos/jobs.ts). A later one is not a real time, and is delivered now.
 */
const MAX_TIME = 1e15 - 1;

/** The target under which a source's held emits wait (never the source's own: see above). */
export const delayedTarget = (sourceId: string): string => `${DELAYED_PREFIX}${sourceId}`;

/** What a held emit's job carries (its payload's `event`). */
interface HeldEmit {
  channel: string;
  event: unknown;
  meta?: EmitInput["meta"];
  hops: number;
}

/**
 * When to deliver an emit given `delivery_ts`: a time in the future, or undefined for now (no
 * value, the past, or a number beyond any date: the worker passes only finite numbers).
 */
export function heldUntil(deliveryTs: number | undefined, now: number): number | undefined {
  if (deliveryTs === undefined || !Number.isFinite(deliveryTs)) return undefined;
  return deliveryTs > now && deliveryTs <= MAX_TIME ? Math.floor(deliveryTs) : undefined;
}

/** The job that delivers `input` at `at` (for JobCompletion.delayed). */
export function delayedJob(input: EmitInput, at: number): NewJob {
  const held: HeldEmit = { channel: input.channel, event: input.event ?? null, meta: input.meta, hops: input.hops ?? 0 };
  return {
    targetId: delayedTarget(input.emitterId),
    ownerId: input.ownerId,
    // Not an invocation: no component runs. The queue only carries the string.
    trigger: "delayed",
    payload: JSON.stringify({ event: held }),
    runAfter: at,
    sortAt: at,
  };
}

/**
 * The queue's handler for `de_` targets: the due held emits of one source, stored as its events
 * with their jobs' deletion. A deleted source's are dropped (deleting it drops its `de_` target
 * too; a run that was still committing may have added one after that). A failed commit stores
 * nothing and keeps the jobs (retried, like a run's); one refused because another instance
 * delivered them first is retried to no effect (the jobs are gone).
 */
export async function handleDelayedJobs(
  jobs: QueuedJob[],
  deps: { catalog: RuntimeCatalog; events: EventStore },
): Promise<BatchOutcome> {
  const sourceId = jobs[0]!.targetId.slice(DELAYED_PREFIX.length);
  // A database error here keeps the jobs (retried): any other error would end the first for good.
  const source = await platformStep("reading the held emits' source", () => deps.catalog.source(sourceId));
  if (!source) return { ran: jobs.length };
  const inputs = jobs.map((job): EmitInput => {
    const held = job.event as HeldEmit;
    return {
      emitterId: sourceId,
      ownerId: job.ownerId,
      channel: held.channel,
      event: held.event,
      ...(held.meta ? { meta: held.meta } : {}),
      hops: held.hops,
    };
  });
  try {
    await deps.events.commit(inputs, { jobIds: jobs.map((j) => j.id) });
  } catch (e) {
    return { ran: 0, failure: new PlatformFailure(`storing held emits failed: ${(e as Error).message}`) };
  }
  return { ran: jobs.length, committed: true };
}
