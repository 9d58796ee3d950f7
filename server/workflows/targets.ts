/**
 * The queue targets of a workflow's jobs (dispatch.ts says how runs move between them):
 * - `p_x`: its own target, where every job comes in;
 * - `p_x~0` … `p_x~99`: its run targets under `concurrency` or a throttle, one per slot;
 * - `wl_p_x`: runs that wait to go on (a retry, a `$.flow.delay`), sorted by due time.
 */
import { CONTROL_LIMITS } from "../../shared/resources/index.js";

/** The queue's target prefix of waiting runs' jobs. */
export const LATER_PREFIX = "wl_";

export const laterTarget = (workflowId: string): string => `${LATER_PREFIX}${workflowId}`;

/** The workflow a target runs (`p_x`, `p_x~3`) or holds for later (`wl_p_x`). */
export function workflowOfTarget(targetId: string): string {
  const id = targetId.startsWith(LATER_PREFIX) ? targetId.slice(LATER_PREFIX.length) : targetId;
  const cut = id.indexOf("~");
  return cut < 0 ? id : id.slice(0, cut);
}

/** Whether a job came in on the workflow's own target (not yet placed by the dispatcher). */
export const onOwnTarget = (targetId: string): boolean => !targetId.includes("~");

/** The run target of slot `n` (dispatch.ts). */
export const slotTarget = (workflowId: string, n: number): string => `${workflowId}~${n}`;

/**
 * Every target a run of the workflow may start from: its own and each slot's, up to the largest
 * `concurrency` (a slot of an earlier, higher setting may still hold jobs).
 */
export function runTargetsOf(workflowId: string): string[] {
  const slots = Array.from({ length: CONTROL_LIMITS.concurrency.max }, (_, n) => slotTarget(workflowId, n));
  return [workflowId, ...slots];
}

/** Every target that may hold the workflow's jobs. */
export const targetsOf = (workflowId: string): string[] => [...runTargetsOf(workflowId), laterTarget(workflowId)];
