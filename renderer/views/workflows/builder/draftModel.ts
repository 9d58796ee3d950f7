/**
 * The builder's steps as it edits them, and the rules that do not need the server: a step's name
 * is an identifier unique in the workflow, steps move one place at a time, problems belong to
 * the step they name.
 */
import type { DraftBody, StepProblem, Workflow } from "../../../../shared/resources/index.js";

export interface EditStep {
  /** Stable across renames and moves (React keys, focus after a move). */
  key: string;
  name: string;
  code: string;
  action?: string;
  props?: Record<string, unknown>;
  /** A code step's prop values (the props its code declares: StepProps.tsx). */
  configured_props?: Record<string, unknown>;
}

export const STEP_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

export const CODE_STEP_TEMPLATE = `export default defineComponent({
  async run({ steps, $ }) {
    return steps.trigger.event;
  },
});
`;

let seq = 0;
const nextKey = () => `k${++seq}`;

export function editSteps(steps: Workflow["steps"]): EditStep[] {
  return steps.map((s) =>
    s.action
      ? { key: nextKey(), name: s.name, code: "", action: s.action, props: s.props ?? {} }
      : { key: nextKey(), name: s.name, code: s.code, ...(s.configured_props ? { configured_props: s.configured_props } : {}) },
  );
}

export function newCodeStep(steps: readonly EditStep[]): EditStep {
  return { key: nextKey(), name: freeName(steps), code: CODE_STEP_TEMPLATE };
}

export function newActionStep(name: string, action: string, props: Record<string, unknown>): EditStep {
  return { key: nextKey(), name, code: "", action, props };
}

/** `step_N` for the first N not taken. */
export function freeName(steps: readonly EditStep[]): string {
  for (let n = steps.length + 1; ; n++) if (!steps.some((s) => s.name === `step_${n}`)) return `step_${n}`;
}

/** Why a step's name cannot be saved, or null. */
export function nameProblem(steps: readonly EditStep[], step: EditStep): string | null {
  if (!STEP_NAME.test(step.name)) return "A step's name is an identifier: letters, digits and _, not starting with a digit.";
  if (steps.some((s) => s !== step && s.name === step.name)) return `Another step is named ${step.name}.`;
  return null;
}

/** The steps as a draft's change takes them. */
export function draftSteps(steps: readonly EditStep[]): NonNullable<DraftBody["steps"]> {
  return steps.map((s) =>
    s.action
      ? { name: s.name, action: s.action, props: s.props ?? {} }
      : { name: s.name, code: s.code, ...(s.configured_props ? { configured_props: s.configured_props } : {}) },
  );
}

export function move<T>(list: readonly T[], from: number, by: -1 | 1): T[] {
  const to = from + by;
  if (to < 0 || to >= list.length) return [...list];
  const out = [...list];
  [out[from], out[to]] = [out[to]!, out[from]!];
  return out;
}

/**
 * A refused deploy's problems by step: the draft's own list, else the 400's details
 * (`{path: "steps.<name>", message: "line L, column C: ..."}`, or `steps.<name>.configured_props.<prop>`).
 */
export function deployProblems(details: readonly { path: string; message: string }[] | undefined): StepProblem[] {
  return (details ?? []).flatMap((d) => {
    const prop = /^steps\.(.+)\.configured_props(?:\.(.+))?$/.exec(d.path);
    if (prop) return [{ step: prop[1]!, ...(prop[2] ? { prop: prop[2] } : {}), line: null, column: null, message: d.message }];
    const m = /^steps\.(.+)$/.exec(d.path);
    if (!m) return [];
    const at = /^line (\d+)(?:, column (\d+))?: (.*)$/.exec(d.message);
    return [
      at
        ? { step: m[1]!, line: Number(at[1]), column: at[2] ? Number(at[2]) : null, message: at[3]! }
        : { step: m[1]!, line: null, column: null, message: d.message },
    ];
  });
}
