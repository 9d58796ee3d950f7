/**
 * Workflow records (decisions.md "Workflows"): create, read, update, delete, list. Ids `p_`,
 * a deployment `d_` per version of the steps, `c_` per step; endpoint_url under the public URL.
 * A step is code, or an action by key (action-steps.ts): its component is resolved and its
 * props checked when the step is saved, and the accounts its app props reference are the
 * workflow's account uses (written in the workflow's transaction, dropped with it).
 */
import { newId } from "../../shared/ids.js";
import type {
  CreateWorkflowBody,
  UpdateWorkflowBody,
  Workflow,
  WorkflowStep,
} from "../../shared/resources/index.js";
import { compileModule, CompileError } from "../runtime/compile.js";
import type { Db } from "../store/db.js";
import type { Requester } from "../users/requester.js";
import { ActionSteps, type ActionStepDeps, type StepInput } from "./action-steps.js";
import { pageByCreation, type PageRequest, type PageRows } from "../store/repos/paging.js";
import { deleteRunsOf } from "../store/repos/runs.js";
import { controlsOf, mergeControls } from "./controls.js";
import { runTargetsOf, targetsOf } from "./targets.js";
import { dropQueueIn, resumeParkedIn } from "../store/repos/workflow-queue.js";
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

/** Strictly increasing within the process, so lists order by creation even within one ms. */
let lastCreatedMs = 0;
function createdMs(): number {
  lastCreatedMs = Math.max(Date.now(), lastCreatedMs + 1);
  return lastCreatedMs;
}

export class WorkflowService {
  private actionSteps: ActionSteps | undefined;
  private readonly changeListeners: Array<(id: string) => void> = [];
  private readonly resumeListeners: Array<(id: string) => void> = [];

  constructor(
    private readonly db: Db,
    private readonly publicUrl: () => string,
    private readonly hooks: WorkflowHooks,
  ) {}

  /** Called after a workflow is updated or deleted (its endpoint's remembered target is forgotten). */
  onChanged(listener: (id: string) => void): void {
    this.changeListeners.push(listener);
  }

  /** Called after a workflow is turned on again, its parked runs' jobs due now (the queue is woken for them). */
  onResumed(listener: (id: string) => void): void {
    this.resumeListeners.push(listener);
  }

  private changed(id: string): void {
    for (const listener of this.changeListeners) listener(id);
  }

  /** Turns on action steps (app.ts, once actions and accounts exist). */
  useActions(deps: ActionStepDeps): void {
    this.actionSteps = new ActionSteps(deps);
  }

  toResource(row: WorkflowRow): Workflow {
    return {
      id: row.id,
      user_id: row.owner_id,
      name: row.name,
      deployment_id: row.deployment_id,
      steps: JSON.parse(row.steps_json) as WorkflowStep[],
      endpoint_url: `${this.publicUrl()}/e/${row.id}`,
      active: Number(row.active) === 1,
      http_response: row.http_response === "workflow" ? "workflow" : "immediate",
      ...controlsOf(row.controls_json),
      created_at: Number(row.created_at),
      updated_at: Number(row.updated_at),
    };
  }

  /**
   * Names every step (step_1, step_2, … by default), keeps ids of unchanged steps, checks code;
   * action steps are resolved and their props checked (the caller binds their accounts).
   */
  private async buildSteps(
    requester: Requester,
    inputs: StepInput[],
    previous: WorkflowStep[] = [],
  ): Promise<WorkflowStep[]> {
    const seen = new Set<string>();
    const out: WorkflowStep[] = [];
    for (const [i, s] of inputs.entries()) {
      const name = s.name ?? `step_${i + 1}`;
      if (name === "trigger")
        throw new WorkflowInputError(`steps[${i}]: the step name "trigger" is reserved`);
      if (seen.has(name)) throw new WorkflowInputError(`steps[${i}]: duplicate step name "${name}"`);
      seen.add(name);
      if (s.action !== undefined) {
        if (!this.actionSteps)
          throw new WorkflowInputError(
            `steps[${i}]: action steps need the runtime, which this server runs without`,
          );
        out.push(await this.actionSteps.build(requester, i, name, s, previous));
        continue;
      }
      const code = s.code ?? "";
      try {
        compileModule(code, `${name}.mjs`);
      } catch (err) {
        if (err instanceof CompileError) throw new WorkflowInputError(`steps[${i}]: ${err.message}`);
        throw err;
      }
      const kept = previous.find((p) => p.name === name && p.action === undefined && p.code === code);
      out.push({ id: kept?.id ?? newId("cell"), name, code });
    }
    return out;
  }

  /** Writes the workflow and its steps' account uses together (inline credentials become accounts). */
  private async write(
    ownerId: string,
    row: Pick<WorkflowRow, "id" | "name">,
    steps: WorkflowStep[] | undefined,
    save: (trx: Db, steps: WorkflowStep[] | undefined) => Promise<void>,
    severalWrites = false,
  ): Promise<WorkflowStep[] | undefined> {
    if (!this.actionSteps || !steps) {
      if (severalWrites) await this.db.transaction().execute((trx) => save(trx, steps));
      else await save(this.db, steps);
      return steps;
    }
    const actionSteps = this.actionSteps;
    return this.db.transaction().execute(async (trx) => {
      const bound = await actionSteps.bind(trx, { userId: ownerId, id: row.id, name: row.name }, steps);
      await save(trx, bound);
      return bound;
    });
  }

  async create(
    ownerId: string,
    body: CreateWorkflowBody,
    requester: Requester = { userId: ownerId, admin: false },
  ): Promise<Workflow> {
    const now = Math.floor(Date.now() / 1000);
    const row: WorkflowRow = {
      id: newId("workflow"),
      owner_id: ownerId,
      name: body.name,
      deployment_id: newId("deployment"),
      steps_json: "",
      active: body.active === false ? 0 : 1,
      http_response: body.http_response ?? "immediate",
      controls_json: JSON.stringify(mergeControls(controlsOf(null), body)),
      created_ms: createdMs(),
      created_at: now,
      updated_at: now,
    };
    const built = await this.buildSteps(requester, body.steps);
    await this.write(ownerId, row, built, async (trx, steps) => {
      row.steps_json = JSON.stringify(steps);
      await insertWorkflow(trx, row);
    });
    await this.hooks.created(ownerId, row.id);
    return this.toResource(row);
  }

  async get(ownerId: string, id: string): Promise<Workflow | undefined> {
    const row = await getWorkflow(this.db, ownerId, id);
    return row && this.toResource(row);
  }

  async update(
    ownerId: string,
    id: string,
    body: UpdateWorkflowBody,
    requester: Requester = { userId: ownerId, admin: false },
  ): Promise<Workflow | undefined> {
    const row = await getWorkflow(this.db, ownerId, id);
    if (!row) return undefined;
    const patch: Partial<WorkflowRow> = { updated_at: Math.floor(Date.now() / 1000) };
    if (body.name !== undefined) patch.name = body.name;
    if (body.active !== undefined) patch.active = body.active ? 1 : 0;
    if (body.http_response !== undefined) patch.http_response = body.http_response;
    if (body.retry !== undefined || body.concurrency !== undefined || body.throttle !== undefined) {
      patch.controls_json = JSON.stringify(mergeControls(controlsOf(row.controls_json), body));
    }
    const built =
      body.steps === undefined
        ? undefined
        : await this.buildSteps(requester, body.steps, JSON.parse(row.steps_json) as WorkflowStep[]);
    // Turned on again: the runs it parked while off go on (runner.ts), in the update's transaction.
    const resumes = patch.active === 1 && Number(row.active) !== 1;
    await this.write(ownerId, { id, name: patch.name ?? row.name }, built, async (trx, steps) => {
      if (steps) {
        patch.steps_json = JSON.stringify(steps);
        if (patch.steps_json !== row.steps_json) patch.deployment_id = newId("deployment");
      }
      await updateWorkflow(trx, ownerId, id, patch);
      if (resumes) await resumeParkedIn(trx, runTargetsOf(id), Date.now());
    }, resumes);
    this.changed(id);
    if (resumes) for (const listener of this.resumeListeners) listener(id);
    return this.toResource({ ...row, ...patch });
  }

  /**
   * Deletes the workflow with its runs and everything queued for it, in one transaction: a run
   * under way then finds its job gone when it commits (the job's delete is its fence), so no run
   * row outlives the workflow, and no target of it is left for the queue to look at.
   */
  async delete(ownerId: string, id: string): Promise<boolean> {
    const actionSteps = this.actionSteps;
    const deleted = await this.db.transaction().execute(async (trx) => {
      const gone = await deleteWorkflow(trx, ownerId, id);
      if (!gone) return false;
      if (actionSteps) await actionSteps.holderDeleted(trx, ownerId, id);
      await dropQueueIn(trx, id, targetsOf(id));
      await deleteRunsOf(trx, id);
      return true;
    });
    if (deleted) {
      this.changed(id);
      await this.hooks.deleted(id);
    }
    return deleted;
  }

  async list(ownerId: string, req: PageRequest): Promise<PageRows<Workflow>> {
    const page = await pageByCreation<WorkflowRow>(this.db, "workflows", { owner_id: ownerId }, req);
    return { rows: page.rows.map((r) => this.toResource(r)), totalCount: page.totalCount };
  }
}
