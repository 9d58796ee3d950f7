/**
 * The fake bridge's versions and drafts (decisions.md "Building workflows"), kept apart from
 * fakeBridge.ts: every version of each workflow as it was, at most one draft per workflow, and the
 * server's rules for deploys and restores (400 `invalid_step`, 409 `version_conflict`, 404 `no_draft`).
 */
import type { BridgeError } from "../../shared/bridge.js";
import type {
  DraftBody,
  StepProblem,
  Workflow,
  WorkflowDraft,
  WorkflowVersion,
  WorkflowVersionInfo,
} from "../../shared/resources/index.js";

type StepIn = NonNullable<DraftBody["steps"]>[number];

/** Saved steps from the steps of an update or a draft (ids by position, as the fake's updates). */
export function savedSteps(steps: StepIn[]): Workflow["steps"] {
  return steps.map((st, n) => ({
    id: `s_${n}`,
    name: st.name ?? `step_${n + 1}`,
    code: st.action ? `// action ${st.action}` : (st.code ?? ""),
    ...(st.action ? { action: st.action, props: st.props ?? {} } : {}),
  }));
}

export class FakeVersions {
  versions = new Map<string, WorkflowVersion[]>();
  drafts = new Map<string, WorkflowDraft>();
  /** What a draft's code is found to lack; by default a step whose code contains `@@` does not parse. */
  problemsOf: (w: Workflow) => StepProblem[] = (w) =>
    w.steps.flatMap((s) => {
      if (s.action) return [];
      const lines = s.code.split("\n");
      const line = lines.findIndex((l) => l.includes("@@"));
      return line < 0 ? [] : [{ step: s.name, line: line + 1, column: lines[line]!.indexOf("@@") + 1, message: "Unexpected token" }];
    });
  private now = 1_700_000_100;

  /** Records a workflow's current state as a version (tests call it to give a workflow a history). */
  record(w: Workflow, origin: WorkflowVersionInfo["origin"], message: string | null = null, restored_from?: number): void {
    const list = this.versions.get(w.id) ?? [];
    list.unshift({
      version: w.version ?? 1,
      created_at: this.now++,
      message,
      origin,
      ...(restored_from ? { restored_from } : {}),
      workflow: structuredClone(w),
    });
    this.versions.set(w.id, list);
  }

  list(id: string): WorkflowVersionInfo[] {
    return (this.versions.get(id) ?? []).map(({ workflow: _w, ...info }) => info);
  }
  get(id: string, n: number): WorkflowVersion {
    const v = (this.versions.get(id) ?? []).find((x) => x.version === n);
    if (!v) throw { status: 404, code: "not_found", message: `no version ${n}` } satisfies BridgeError;
    return v;
  }
  draft(id: string): WorkflowDraft {
    const d = this.drafts.get(id);
    if (!d) throw { status: 404, code: "no_draft", message: "This workflow has no draft." } satisfies BridgeError;
    return d;
  }
  update(current: Workflow, body: DraftBody): WorkflowDraft {
    const prev = this.drafts.get(current.id);
    const base = prev?.workflow ?? current;
    // The builder changes names and steps; the fake keeps the rest as it was.
    const w: Workflow = {
      ...base,
      ...(body.name ? { name: body.name } : {}),
      ...(body.steps ? { steps: savedSteps(body.steps) } : {}),
    };
    const d: WorkflowDraft = {
      base_version: prev?.base_version ?? current.version ?? 1,
      updated_at: this.now++,
      workflow: w,
      problems: this.problemsOf(w),
    };
    this.drafts.set(current.id, d);
    return d;
  }
  /** The next version from `content`, after the server's checks; the caller stores it. */
  next(current: Workflow, content: Workflow, base_version: number | undefined): Workflow {
    const v = current.version ?? 1;
    if (base_version !== undefined && base_version !== v)
      throw {
        status: 409,
        code: "version_conflict",
        message: `workflow ${current.id} is at version ${v}, not ${base_version}: read it again, and apply your change to version ${v}`,
        details: [{ path: "base_version", message: `the current version is ${v}` }],
      } satisfies BridgeError;
    return { ...current, name: content.name, steps: content.steps, version: v + 1, updated_at: this.now++ };
  }
  deploy(current: Workflow, body: { message?: string; base_version?: number }): Workflow {
    const d = this.draft(current.id);
    const p = d.problems[0];
    if (p)
      throw {
        status: 400,
        code: "invalid_step",
        message: `the draft cannot be deployed: step ${p.step} line ${p.line}: ${p.message}`,
        details: [{ path: `steps.${p.step}`, message: `line ${p.line}, column ${p.column}: ${p.message}` }],
      } satisfies BridgeError;
    const w = this.next(current, d.workflow, body.base_version);
    this.drafts.delete(current.id);
    this.record(w, "draft", body.message ?? null);
    return w;
  }
  restore(current: Workflow, n: number, body: { message?: string; base_version?: number }): Workflow {
    const w = this.next(current, this.get(current.id, n).workflow, body.base_version);
    this.record(w, "restore", body.message ?? null, n);
    return w;
  }
}
