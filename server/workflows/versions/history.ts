/**
 * A workflow's history and its draft (decisions.md "Building workflows"): versions listed, read
 * whole and restored; the one draft read, changed, discarded and deployed. Every change of the
 * workflow itself goes through WorkflowService.change, the one path that checks `base_version`
 * and writes the version. Another user's workflow, version or draft is not found.
 */
import { newId } from "../../../shared/ids.js";
import {
  ERROR_CODES,
  type DraftBody,
  type StepProblem,
  type Workflow,
  type WorkflowDraft,
  type WorkflowStep,
  type WorkflowVersion,
  type WorkflowVersionInfo,
} from "../../../shared/resources/index.js";
import { compileModule, CompileError } from "../../runtime/compile.js";
import type { Db } from "../../store/db.js";
import type { PageRequest, PageRows } from "../../store/repos/paging.js";
import {
  deleteDraftIn,
  getDraft,
  getVersion,
  listVersions,
  saveDraft,
  type WorkflowVersionRow,
} from "../../store/repos/workflow-versions.js";
import { getWorkflow, type WorkflowRow } from "../../store/repos/workflows.js";
import type { Requester } from "../../users/requester.js";
import type { WorkflowService } from "../service.js";
import { changedContent, contentOfRow, contentText, parseContent, rowColumnsOf, type WorkflowContent } from "./content.js";

/** A request the history refuses: a 400 with its code and details for the API. */
export class HistoryInputError extends Error {
  constructor(
    message: string,
    readonly code: string,
    readonly details?: Array<{ path: string; message: string }>,
  ) {
    super(message);
  }
}

const seconds = (ms: number | string) => Math.floor(Number(ms) / 1000);

function infoOf(v: WorkflowVersionRow): WorkflowVersionInfo {
  return {
    version: Number(v.version),
    created_at: seconds(v.created_ms),
    message: v.message,
    origin: v.origin as WorkflowVersionInfo["origin"],
    ...(v.restored_from !== null ? { restored_from: Number(v.restored_from) } : {}),
  };
}

/** Where a parser's message says the error is: `(line:column)`. */
function whereIn(message: string): { line: number | null; column: number | null } {
  const m = /\((\d+):(\d+)\)/.exec(message);
  return m ? { line: Number(m[1]), column: Number(m[2]) + 1 } : { line: null, column: null };
}

/** What keeps a draft's steps from being deployed: code that is empty or does not parse. */
export function problemsOf(steps: WorkflowStep[]): StepProblem[] {
  const problems: StepProblem[] = [];
  for (const step of steps) {
    if (step.action !== undefined) continue;
    if (step.code.trim() === "") {
      problems.push({ step: step.name, line: null, column: null, message: "the step has no code" });
      continue;
    }
    try {
      compileModule(step.code, `${step.name}.mjs`);
    } catch (err) {
      if (!(err instanceof CompileError)) throw err;
      const message = err.message.replace(`${step.name}.mjs does not parse: `, "");
      problems.push({ step: step.name, ...whereIn(message), message });
    }
  }
  return problems;
}

export class WorkflowHistory {
  constructor(
    private readonly db: Db,
    private readonly workflows: WorkflowService,
  ) {}

  /** The workflow with another content, as a resource (a version's, a draft's). */
  private withContent(row: WorkflowRow, content: WorkflowContent, at?: Partial<WorkflowRow>): Workflow {
    return this.workflows.toResource({ ...row, ...rowColumnsOf(content), ...at });
  }

  async versions(ownerId: string, id: string, page: PageRequest): Promise<PageRows<WorkflowVersionInfo & { id: string }> | undefined> {
    if (!(await getWorkflow(this.db, ownerId, id))) return undefined;
    const rows = await listVersions(this.db, ownerId, id, page);
    return { rows: rows.rows.map((v) => ({ id: v.id, ...infoOf(v) })), totalCount: rows.totalCount };
  }

  async version(ownerId: string, id: string, n: number): Promise<WorkflowVersion | undefined> {
    const row = await getWorkflow(this.db, ownerId, id);
    const v = row && (await getVersion(this.db, ownerId, id, n));
    if (!row || !v) return undefined;
    const updated_at = seconds(v.created_ms);
    return { ...infoOf(v), workflow: this.withContent(row, parseContent(v.content_json), { version: n, updated_at }) };
  }

  /** A new version with version n's content (history stays linear). undefined: no such workflow or version. */
  async restore(
    ownerId: string,
    id: string,
    n: number,
    o: { message?: string | undefined; base_version?: number | undefined },
    requester?: Requester,
  ): Promise<Workflow | undefined> {
    const v = await getVersion(this.db, ownerId, id, n);
    if (!v) return undefined;
    const content = parseContent(v.content_json);
    return this.workflows.change(
      ownerId,
      id,
      content,
      {
        origin: "restore",
        restoredFrom: n,
        ...(o.message !== undefined ? { message: o.message } : {}),
        ...(o.base_version !== undefined ? { baseVersion: o.base_version } : {}),
      },
      requester,
    );
  }

  /** The draft; undefined when the workflow is not the owner's, null when it has none. */
  async draft(ownerId: string, id: string): Promise<WorkflowDraft | null | undefined> {
    const row = await getWorkflow(this.db, ownerId, id);
    if (!row) return undefined;
    const d = await getDraft(this.db, ownerId, id);
    if (!d) return null;
    const content = parseContent(d.content_json);
    const problems = problemsOf(content.steps);
    // Props are read from code that parses; a step whose code does not is already a problem.
    const props = await this.workflows.stepProps.forDraft(ownerId, content.steps, new Set(problems.map((p) => p.step)));
    return {
      base_version: Number(d.base_version),
      updated_at: seconds(d.updated_ms),
      workflow: this.withContent(row, content),
      problems: [...problems, ...props.problems],
      step_props: props.props,
    };
  }

  /**
   * Changes the draft (made first as a copy of the current version): the fields the body names
   * replace the draft's. Code that does not parse is kept, and listed in `problems`.
   */
  async saveDraft(ownerId: string, id: string, body: DraftBody): Promise<WorkflowDraft | undefined> {
    const row = await getWorkflow(this.db, ownerId, id);
    if (!row) return undefined;
    const existing = await getDraft(this.db, ownerId, id);
    const base = existing ? parseContent(existing.content_json) : contentOfRow(row);
    const { steps, ...fields } = body;
    const next = changedContent(base, { ...fields, ...(steps ? { steps: draftSteps(steps, base.steps) } : {}) });
    const now = Date.now();
    await saveDraft(this.db, {
      workflow_id: id,
      owner_id: ownerId,
      base_version: existing ? Number(existing.base_version) : Number(row.version ?? 1),
      updated_ms: now,
      content_json: contentText(next),
    });
    return (await this.draft(ownerId, id)) ?? undefined;
  }

  /** Discards the draft: false when there was none (undefined: no such workflow). */
  async discardDraft(ownerId: string, id: string): Promise<boolean | undefined> {
    if (!(await getWorkflow(this.db, ownerId, id))) return undefined;
    return deleteDraftIn(this.db, ownerId, id);
  }

  /**
   * Deploys the draft as the next version (the draft is gone after, in the same transaction).
   * A draft with problems is refused, 400 `invalid_step` naming each step and line (or prop); none is 404 `no_draft`.
   */
  async deploy(
    ownerId: string,
    id: string,
    o: { message?: string | undefined; base_version?: number | undefined },
    requester?: Requester,
  ): Promise<Workflow | undefined | null> {
    const draft = await this.draft(ownerId, id);
    if (draft === undefined) return undefined;
    if (draft === null) return null;
    if (draft.problems.length > 0) {
      throw new HistoryInputError(
        `the draft cannot be deployed: ${draft.problems.map((p) => `step ${p.step}${p.line !== null ? ` line ${p.line}` : ""}: ${p.message}`).join("; ")}`,
        ERROR_CODES.invalidStep,
        draft.problems.map((p) => ({
          path: `steps.${p.step}${p.prop !== undefined ? `.configured_props.${p.prop}` : ""}`,
          message: p.line !== null ? `line ${p.line}, column ${p.column}: ${p.message}` : p.message,
        })),
      );
    }
    const wf = draft.workflow;
    return this.workflows.change(
      ownerId,
      id,
      {
        name: wf.name,
        stepInputs: wf.steps.map((s) =>
          s.action !== undefined
            ? { name: s.name, action: s.action, ...(s.props ? { props: s.props } : {}) }
            : { name: s.name, code: s.code, ...(s.configured_props ? { configured_props: s.configured_props } : {}) },
        ),
        ...(wf.http_response ? { http_response: wf.http_response } : {}),
        ...(wf.retry ? { retry: wf.retry } : {}),
        ...(wf.concurrency !== undefined ? { concurrency: wf.concurrency } : {}),
        ...(wf.throttle !== undefined ? { throttle: wf.throttle } : {}),
      },
      {
        origin: "draft",
        ...(o.message !== undefined ? { message: o.message } : {}),
        ...(o.base_version !== undefined ? { baseVersion: o.base_version } : {}),
        alsoIn: async (trx) => {
          await deleteDraftIn(trx, ownerId, id);
        },
      },
      requester,
    );
  }
}

/**
 * A draft's steps from what the client sent: each keeps the id of the step of that name it
 * replaces (so that a run's records and the builder's stale marks follow a step through edits).
 */
function draftSteps(inputs: NonNullable<DraftBody["steps"]>, previous: WorkflowStep[]): WorkflowStep[] {
  return inputs.map((s, i) => {
    const name = s.name ?? `step_${i + 1}`;
    const id = previous.find((p) => p.name === name)?.id ?? newId("cell");
    return s.action !== undefined
      ? { id, name, code: `// action ${s.action}`, action: s.action, ...(s.props ? { props: s.props } : {}) }
      : { id, name, code: s.code ?? "", ...(s.configured_props ? { configured_props: s.configured_props } : {}) };
  });
}
