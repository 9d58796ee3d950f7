/**
 * Workflow records (decisions.md "Workflows"): create, read, update, delete, list. Ids `p_`,
 * a deployment `d_` per version of the steps, `c_` per step; endpoint_url under the public URL.
 */
import { newId } from "../../shared/ids.js";
import type { CreateWorkflowBody, UpdateWorkflowBody, Workflow, WorkflowStep } from "../../shared/resources/index.js";
import { compileModule, CompileError } from "../runtime/compile.js";
import type { Db } from "../store/db.js";
import { pageByCreation, type PageRequest, type PageRows } from "../store/repos/paging.js";
import {
  deleteWorkflow,
  getWorkflow,
  insertWorkflow,
  updateWorkflow,
  type WorkflowRow,
} from "../store/repos/workflows.js";

/** A workflow request the service refuses (a 400 for the API). */
export class WorkflowInputError extends Error {}

export interface WorkflowHooks {
  /** Auto-subscriptions for the new workflow. */
  created(ownerId: string, id: string): Promise<void>;
  /** Subscriptions and events of a deleted workflow. */
  deleted(id: string): Promise<void>;
}

type StepInput = { name?: string | undefined; code: string };

/** Strictly increasing within the process, so lists order by creation even within one ms. */
let lastCreatedMs = 0;
function createdMs(): number {
  lastCreatedMs = Math.max(Date.now(), lastCreatedMs + 1);
  return lastCreatedMs;
}

export class WorkflowService {
  constructor(
    private readonly db: Db,
    private readonly publicUrl: () => string,
    private readonly hooks: WorkflowHooks,
  ) {}

  toResource(row: WorkflowRow): Workflow {
    return {
      id: row.id,
      user_id: row.owner_id,
      name: row.name,
      deployment_id: row.deployment_id,
      steps: JSON.parse(row.steps_json) as WorkflowStep[],
      endpoint_url: `${this.publicUrl()}/e/${row.id}`,
      active: Number(row.active) === 1,
      created_at: Number(row.created_at),
      updated_at: Number(row.updated_at),
    };
  }

  /** Names every step (step_1, step_2, … by default), keeps ids of unchanged names, checks code. */
  private buildSteps(inputs: StepInput[], previous: WorkflowStep[] = []): WorkflowStep[] {
    const seen = new Set<string>();
    return inputs.map((s, i) => {
      const name = s.name ?? `step_${i + 1}`;
      if (name === "trigger") throw new WorkflowInputError(`steps[${i}]: the step name "trigger" is reserved`);
      if (seen.has(name)) throw new WorkflowInputError(`steps[${i}]: duplicate step name "${name}"`);
      seen.add(name);
      try {
        compileModule(s.code, `${name}.mjs`);
      } catch (err) {
        if (err instanceof CompileError) throw new WorkflowInputError(`steps[${i}]: ${err.message}`);
        throw err;
      }
      const kept = previous.find((p) => p.name === name && p.code === s.code);
      return { id: kept?.id ?? newId("cell"), name, code: s.code };
    });
  }

  async create(ownerId: string, body: CreateWorkflowBody): Promise<Workflow> {
    const now = Math.floor(Date.now() / 1000);
    const row: WorkflowRow = {
      id: newId("workflow"),
      owner_id: ownerId,
      name: body.name,
      deployment_id: newId("deployment"),
      steps_json: JSON.stringify(this.buildSteps(body.steps)),
      active: body.active === false ? 0 : 1,
      created_ms: createdMs(),
      created_at: now,
      updated_at: now,
    };
    await insertWorkflow(this.db, row);
    await this.hooks.created(ownerId, row.id);
    return this.toResource(row);
  }

  async get(ownerId: string, id: string): Promise<Workflow | undefined> {
    const row = await getWorkflow(this.db, ownerId, id);
    return row && this.toResource(row);
  }

  async update(ownerId: string, id: string, body: UpdateWorkflowBody): Promise<Workflow | undefined> {
    const row = await getWorkflow(this.db, ownerId, id);
    if (!row) return undefined;
    const patch: Partial<WorkflowRow> = { updated_at: Math.floor(Date.now() / 1000) };
    if (body.name !== undefined) patch.name = body.name;
    if (body.active !== undefined) patch.active = body.active ? 1 : 0;
    if (body.steps !== undefined) {
      const steps = this.buildSteps(body.steps, JSON.parse(row.steps_json) as WorkflowStep[]);
      patch.steps_json = JSON.stringify(steps);
      if (patch.steps_json !== row.steps_json) patch.deployment_id = newId("deployment");
    }
    await updateWorkflow(this.db, ownerId, id, patch);
    return this.toResource({ ...row, ...patch });
  }

  async delete(ownerId: string, id: string): Promise<boolean> {
    const deleted = await deleteWorkflow(this.db, ownerId, id);
    if (deleted) await this.hooks.deleted(id);
    return deleted;
  }

  async list(ownerId: string, req: PageRequest): Promise<PageRows<Workflow>> {
    const page = await pageByCreation<WorkflowRow>(this.db, "workflows", { owner_id: ownerId }, req);
    return { rows: page.rows.map((r) => this.toResource(r)), totalCount: page.totalCount };
  }
}
