/**
 * What changes between two states of a workflow, step by step, for people: its name and
 * settings field by field, then each step added, removed or changed with a unified diff of its
 * code (an action step's key and props stand for its code). `workflows diff` prints it for two
 * versions, `workflows push` for the deployed workflow and the local files. Steps are matched by
 * name (what a step's results are called in the code that follows), so a renamed step shows as
 * one removed and one added.
 *
 * A step's text and the hunks of its diff are shared/step-diff.ts's (the server's comparison of
 * two runs writes them the same way); here each step's hunks come under the step's own header.
 */
import type { Workflow, WorkflowStep } from "../../shared/resources/index.js";
import { stepText, unifiedHunks as hunks } from "../../shared/step-diff.js";
import type { Style } from "../output/style.js";

/** The fields of a workflow that make a version (`active` does not), compared one by one. */
export const CONTENT_FIELDS = ["name", "http_response", "retry", "concurrency", "throttle", "schedules", "http_auth"] as const;

/** What a workflow's state is made of, for a comparison: a workflow as the API answers it, or as a file holds it. */
export type WorkflowState = Pick<Workflow, "name"> & Partial<Pick<Workflow, "http_response" | "retry" | "concurrency" | "throttle">> & {
  steps: Array<Pick<WorkflowStep, "name" | "code"> & Partial<Pick<WorkflowStep, "action" | "props" | "configured_props">>>;
  [field: string]: unknown;
};

export interface FieldChange {
  field: string;
  from: unknown;
  to: unknown;
}

export interface StepChange {
  step: string;
  change: "added" | "removed" | "changed";
  /** Unified diff hunks of the step's text (its code, or its action and props). */
  patch: string;
}

export interface Changes {
  fields: FieldChange[];
  /** The steps' names in order, when the order of the steps both have changed. */
  order: { from: string[]; to: string[] } | null;
  steps: StepChange[];
}

/** `retry` as `retry.max_attempts` etc.: a change names the exact field. */
function flatten(field: string, value: unknown): Array<[string, unknown]> {
  if (value && typeof value === "object" && !Array.isArray(value))
    return Object.entries(value as Record<string, unknown>).flatMap(([k, v]) => flatten(`${field}.${k}`, v));
  return [[field, value]];
}

function fieldChanges(a: WorkflowState, b: WorkflowState): FieldChange[] {
  const out: FieldChange[] = [];
  for (const field of CONTENT_FIELDS) {
    const [x, y] = [a[field], b[field]];
    if (JSON.stringify(x) === JSON.stringify(y)) continue;
    // An object on both sides (retry, a throttle): the fields that differ; else the whole value.
    const objects = [x, y].every((v) => v && typeof v === "object" && !Array.isArray(v));
    if (!objects) {
      out.push({ field, from: x ?? null, to: y ?? null });
      continue;
    }
    const left = new Map(flatten(field, x));
    const right = new Map(flatten(field, y));
    for (const key of new Set([...left.keys(), ...right.keys()])) {
      if (JSON.stringify(left.get(key)) !== JSON.stringify(right.get(key)))
        out.push({ field: key, from: left.get(key) ?? null, to: right.get(key) ?? null });
    }
  }
  return out;
}

export function compareWorkflows(a: WorkflowState, b: WorkflowState): Changes {
  const before = new Map(a.steps.map((s) => [s.name, s]));
  const after = new Map(b.steps.map((s) => [s.name, s]));
  const steps: StepChange[] = [];
  for (const s of b.steps) {
    const old = before.get(s.name);
    if (!old) steps.push({ step: s.name, change: "added", patch: hunks("", stepText(s)) });
    else if (stepText(old) !== stepText(s)) steps.push({ step: s.name, change: "changed", patch: hunks(stepText(old), stepText(s)) });
  }
  for (const s of a.steps) {
    if (!after.has(s.name)) steps.push({ step: s.name, change: "removed", patch: hunks(stepText(s), "") });
  }
  const kept = (list: WorkflowState["steps"], other: Map<string, unknown>) => list.map((s) => s.name).filter((n) => other.has(n));
  const from = kept(a.steps, after);
  const to = kept(b.steps, before);
  const order = from.join("\n") === to.join("\n") ? null : { from: a.steps.map((s) => s.name), to: b.steps.map((s) => s.name) };
  return { fields: fieldChanges(a, b), order, steps };
}

export const nothingChanged = (c: Changes) => c.fields.length === 0 && c.order === null && c.steps.length === 0;

const shown = (v: unknown) => (v === null || v === undefined ? "none" : JSON.stringify(v));

/** The changes as text: `--- A` / `+++ B`, the fields, the order, then each step's header and hunks. */
export function renderChanges(c: Changes, labels: { from: string; to: string }, style: Style): string {
  const lines = [style.bold(`--- ${labels.from}`), style.bold(`+++ ${labels.to}`)];
  for (const f of c.fields) lines.push(`${f.field}: ${shown(f.from)} -> ${shown(f.to)}`);
  if (c.order) lines.push(`steps order: ${c.order.from.join(", ")} -> ${c.order.to.join(", ")}`);
  for (const s of c.steps) {
    lines.push(style.cyan(`step ${s.step}: ${s.change}`));
    for (const line of s.patch.split("\n")) {
      if (line.startsWith("@@")) lines.push(style.cyan(line));
      else if (line.startsWith("+")) lines.push(style.green(line));
      else if (line.startsWith("-")) lines.push(style.red(line));
      else lines.push(line);
    }
  }
  return lines.join("\n") + "\n";
}
