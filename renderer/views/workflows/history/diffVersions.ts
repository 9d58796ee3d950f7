/**
 * What changed between two versions of a workflow: its name, its settings, and step by step
 * (matched by name) a unified line diff of the code, or of an action step's action and props.
 * The line diff is jsdiff's (`diff`): the Myers algorithm, hunks with context, kept up to date.
 */
import { structuredPatch } from "diff";
import type { Workflow } from "../../../../shared/resources/index.js";
import { stepText as sharedStepText } from "../../../../shared/step-diff.js";

export interface DiffLine {
  kind: "add" | "del" | "same" | "hunk";
  text: string;
}

export type StepChange =
  | { name: string; status: "added" | "removed" | "changed"; lines: DiffLine[]; moved?: { from: number; to: number } }
  | { name: string; status: "unchanged"; moved?: { from: number; to: number } };

export interface FieldChange {
  field: string;
  before: string;
  after: string;
}

export interface VersionDiff {
  fields: FieldChange[];
  steps: StepChange[];
}

/** The settings a version carries besides its steps (turning it on or off is no version). */
const FIELDS = ["name", "http_response", "retry", "concurrency", "throttle"] as const;

const show = (v: unknown) => (v === undefined ? "(not set)" : typeof v === "string" ? v : JSON.stringify(v));

/** A step as text: its code (and its configured props), or its action and props (as shared/step-diff.ts writes it). */
export function stepText(s: Workflow["steps"][number]): string {
  return sharedStepText(s.action ? s : { ...s, action: undefined });
}

export function lineDiff(before: string, after: string): DiffLine[] {
  const patch = structuredPatch("a", "b", before, after, "", "", { context: 3 });
  return patch.hunks.flatMap((h) => [
    { kind: "hunk" as const, text: `@@ -${h.oldStart},${h.oldLines} +${h.newStart},${h.newLines} @@` },
    ...h.lines
      .filter((l) => !l.startsWith("\\"))
      .map((l): DiffLine => ({ kind: l[0] === "+" ? "add" : l[0] === "-" ? "del" : "same", text: l.slice(1) })),
  ]);
}

export function diffVersions(a: Workflow, b: Workflow): VersionDiff {
  const fields = FIELDS.flatMap((f) => {
    const before = show(a[f]);
    const after = show(b[f]);
    return before === after ? [] : [{ field: f, before, after }];
  });
  const steps: StepChange[] = [];
  const indexIn = (w: Workflow, name: string) => w.steps.findIndex((s) => s.name === name);
  for (const [i, s] of b.steps.entries()) {
    const j = indexIn(a, s.name);
    if (j < 0) {
      steps.push({ name: s.name, status: "added", lines: lineDiff("", stepText(s)) });
      continue;
    }
    const moved = i !== j ? { from: j + 1, to: i + 1 } : undefined;
    const before = stepText(a.steps[j]!);
    const after = stepText(s);
    steps.push(
      before === after
        ? { name: s.name, status: "unchanged", ...(moved ? { moved } : {}) }
        : { name: s.name, status: "changed", lines: lineDiff(before, after), ...(moved ? { moved } : {}) },
    );
  }
  for (const s of a.steps)
    if (indexIn(b, s.name) < 0) steps.push({ name: s.name, status: "removed", lines: lineDiff(stepText(s), "") });
  return { fields, steps };
}
