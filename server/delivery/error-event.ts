/**
 * The `$errors` event in the spec's shape (api-v1.md §2 "event of a workflow error"), used for
 * workflow step errors and delivery errors alike.
 */
import type { WorkflowErrorEvent } from "../../shared/resources/index.js";
import { componentStack, scrubServerPaths } from "../runtime/stacks.js";

export const PLATFORM_VERSION = "headwater-1";

export interface ErrorEventInput {
  /** The workflow or source the error belongs to. */
  listenerId: string;
  /** The workflow's deployment id (`d_`), or the listener id for sources. */
  deploymentId?: string;
  ownerId: string;
  originalEvent: unknown;
  /** Id of the triggering event or request. */
  contextId: string;
  sourceType: "SOURCE" | "WORKFLOW" | "HTTP" | "TIMER" | "MANUAL";
  code: string;
  message: string;
  cellId: string;
  stack: string;
  /** The attempts the run made (a workflow that retries), when it gave up. */
  attempts?: number;
  now: Date;
}

export function errorEvent(input: ErrorEventInput): WorkflowErrorEvent {
  // What the sandbox sent, as a user may see it (decisions.md, Stacks): the component's frames
  // only, and no path of the server's files in the message either.
  const e = { ...input, message: scrubServerPaths(input.message), stack: componentStack(input.stack) };
  const ts = e.now.toISOString();
  return {
    original_event: e.originalEvent ?? null,
    original_context: {
      id: e.contextId,
      ts,
      workflow_id: e.listenerId,
      deployment_id: e.deploymentId ?? e.listenerId,
      source_type: e.sourceType,
      verified: false,
      owner_id: e.ownerId,
      platform_version: PLATFORM_VERSION,
    },
    error: { code: e.code, message: e.message, cellId: e.cellId, ts, stack: e.stack, ...(e.attempts !== undefined ? { attempts: e.attempts } : {}) },
  };
}
