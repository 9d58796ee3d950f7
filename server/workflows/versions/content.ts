/**
 * A workflow's content: the fields that make its versions (decisions.md "Building workflows":
 * its name, steps, `http_response` and execution controls; turning it on or off is not a
 * change of content). One shape for the versions' rows, drafts and the change path, written
 * with its keys in one order, so that two contents are equal exactly when their texts are.
 */
import type { HttpResponseMode, RetryPolicy, Throttle, WorkflowStep } from "../../../shared/resources/index.js";
import type { WorkflowRow } from "../../store/repos/workflows.js";
import { controlsOf, mergeControls, type Controls } from "../controls.js";

export interface WorkflowContent extends Controls {
  name: string;
  steps: WorkflowStep[];
  http_response: HttpResponseMode;
}

/** The fields of a change of content; those it does not name keep their value. */
export interface ContentFields {
  name?: string | undefined;
  steps?: WorkflowStep[] | undefined;
  http_response?: HttpResponseMode | undefined;
  retry?: Partial<RetryPolicy> | undefined;
  concurrency?: number | undefined;
  throttle?: Throttle | null | undefined;
}

export function contentOfRow(row: WorkflowRow): WorkflowContent {
  return {
    name: row.name,
    steps: JSON.parse(row.steps_json) as WorkflowStep[],
    http_response: row.http_response === "workflow" ? "workflow" : "immediate",
    ...controlsOf(row.controls_json),
  };
}

/** The content after a change: what it names replaces, the controls merge as an update's do. */
export function changedContent(current: WorkflowContent, fields: ContentFields): WorkflowContent {
  return {
    name: fields.name ?? current.name,
    steps: fields.steps ?? current.steps,
    http_response: fields.http_response ?? current.http_response,
    ...mergeControls(current, fields),
  };
}

/** The content as text, its keys always in this order (equal contents, equal texts). */
export function contentText(c: WorkflowContent): string {
  return JSON.stringify({
    name: c.name,
    steps: c.steps.map((s) => ({
      id: s.id,
      name: s.name,
      code: s.code,
      ...(s.action !== undefined ? { action: s.action } : {}),
      ...(s.component_id !== undefined ? { component_id: s.component_id } : {}),
      ...(s.props !== undefined ? { props: s.props } : {}),
      ...(s.configured_props !== undefined ? { configured_props: s.configured_props } : {}),
    })),
    http_response: c.http_response,
    retry: {
      max_attempts: c.retry.max_attempts,
      initial_delay_seconds: c.retry.initial_delay_seconds,
      max_delay_seconds: c.retry.max_delay_seconds,
    },
    concurrency: c.concurrency,
    throttle: c.throttle ? { limit: c.throttle.limit, period_seconds: c.throttle.period_seconds } : null,
  });
}

/** A version's stored content (its row's `content_json`), as the workflow had it. */
export function parseContent(text: string): WorkflowContent {
  const c = JSON.parse(text) as Partial<WorkflowContent> & { name: string; steps: WorkflowStep[] };
  return {
    name: c.name,
    steps: c.steps,
    http_response: c.http_response === "workflow" ? "workflow" : "immediate",
    ...controlsOf(JSON.stringify({ retry: c.retry, concurrency: c.concurrency, throttle: c.throttle ?? null })),
  };
}

/** The workflow row's columns that hold a content. */
export function rowColumnsOf(c: WorkflowContent): Pick<WorkflowRow, "name" | "steps_json" | "http_response" | "controls_json"> {
  return {
    name: c.name,
    steps_json: JSON.stringify(c.steps),
    http_response: c.http_response,
    controls_json: JSON.stringify({ retry: c.retry, concurrency: c.concurrency, throttle: c.throttle }),
  };
}
