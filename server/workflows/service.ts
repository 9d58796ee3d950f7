/**
 * Workflow records (decisions.md "Workflows"): create, read, update, delete, list. Ids `p_`,
 * a deployment `d_` per version of the steps, `c_` per step; endpoint_url under the public URL.
 * A step is code, or an action by key (action-steps.ts): its component is resolved and its
 * props checked when the step is saved, and the accounts its app props reference are the
 * workflow's account uses (written in the workflow's transaction, dropped with it).
 * A few lines over the house's ~400: create, update and delete share the one write path that
 * checks steps, props, triggers and base_version; versions/ and step-props/ hold the rest.
 */
import { newId } from "../../shared/ids.js";
import {
  ERROR_CODES,
  type CreateWorkflowBody,
  type UpdateWorkflowBody,
  type VersionOrigin,
  type Workflow,
  type WorkflowStep,
} from "../../shared/resources/index.js";
import { compileModule, CompileError } from "../runtime/compile.js";
import type { Db } from "../store/db.js";
import type { Requester } from "../users/requester.js";
import { ActionSteps, type ActionStepDeps, type StepInput } from "./action-steps.js";
import { StepProps } from "./step-props/index.js";
import { ComponentLoadError, type ComponentDescriber } from "../services.js";
import { pageByCreation, type PageRequest, type PageRows } from "../store/repos/paging.js";
import { deleteRunsOf } from "../store/repos/runs.js";
import { controlsOf, mergeControls } from "./controls.js";
import { runTargetsOf, targetsOf } from "./targets.js";
import { dropQueueIn, resumeParkedIn } from "../store/repos/workflow-queue.js";
import {
  deleteHistoryIn,
  insertVersionIn,
  lockWorkflowIn,
  versionRowId,
  type WorkflowVersionRow,
} from "../store/repos/workflow-versions.js";
import { ConflictError } from "../errors.js";
import { deleteTestRunsIn } from "../store/repos/test-runs.js";
import {
  changedContent,
  contentOfRow,
  contentText,
  rowColumnsOf,
  type ContentFields,
  type WorkflowContent,
} from "./versions/content.js";
import { httpAuthAnswer, parseTriggersJson, triggerFieldsOf, triggersJson, type WorkflowTriggers } from "./schedules/triggers.js";
import { syncSchedulesIn } from "./schedules/sync.js";
import {
  deleteWorkflow,
  getWorkflow,
  insertWorkflow,
  updateWorkflow,
  type WorkflowRow,
} from "../store/repos/workflows.js";

/** A workflow request the service refuses (a 400 for the API). */
export class WorkflowInputError extends Error {}

/** How a change of content is recorded (service.change). */
export interface ChangeOptions {
  origin: VersionOrigin;
  message?: string;
  /** The version the change was made against: 409 `version_conflict` when it is not the current one. */
  baseVersion?: number;
  /** A restore's: the version whose content it takes. */
  restoredFrom?: number;
  /** Turns the workflow on or off (no version). */
  active?: boolean;
  /** More writes of the change's transaction (a deploy deletes its draft there). */
  alsoIn?: (trx: Db) => Promise<void>;
}

const versionConflict = (id: string, given: number, current: number) =>
  new ConflictError(
    `workflow ${id} is at version ${current}, not ${given}: read it again, and apply your change to version ${current}`,
    ERROR_CODES.versionConflict,
    [{ path: "base_version", message: `the current version is ${current}` }],
  );

/** The row of a new version: the workflow's content at `row.version`. */
function versionRow(
  row: Pick<WorkflowRow, "id" | "owner_id" | "version">,
  content: WorkflowContent,
  o: Pick<ChangeOptions, "origin" | "message" | "restoredFrom">,
  now: number,
): WorkflowVersionRow {
  const version = Number(row.version ?? 1);
  return {
    id: versionRowId(row.id, version),
    workflow_id: row.id,
    version,
    owner_id: row.owner_id,
    created_ms: now,
    origin: o.origin,
    message: o.message ?? null,
    restored_from: o.restoredFrom ?? null,
    content_json: contentText(content),
  };
}

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

/** A code step's configured props as stored: none when empty. */
const configuredOf = (s: { configured_props?: Record<string, unknown> | undefined }) =>
  s.configured_props && Object.keys(s.configured_props).length > 0 ? { configured_props: s.configured_props } : {};

export class WorkflowService {
  private actionSteps: ActionSteps | undefined;
  /** Code steps' props: read from their code (once the runtime is there: useDescriber) and checked. */
  readonly stepProps: StepProps;
  private describer: ComponentDescriber | undefined;
  private readonly changeListeners: Array<(id: string) => void> = [];
  private readonly resumeListeners: Array<(id: string) => void> = [];

  constructor(
    private readonly db: Db,
    private readonly publicUrl: () => string,
    private readonly hooks: WorkflowHooks,
  ) {
    this.stepProps = new StepProps({
      describer: { describe: (...args) => this.describerOrFail().describe(...args) },
      accounts: (ownerId, ids, db) =>
        ids.length === 0
          ? Promise.resolve([])
          : (db ?? this.db).selectFrom("accounts").select(["id", "app"]).where("user_id", "=", ownerId).where("id", "in", ids).execute(),
      dataStores: async (ownerId, ids, db) =>
        ids.length === 0
          ? []
          : (
              await (db ?? this.db)
                .selectFrom("data_stores")
                .select("id")
                .where("user_id", "=", ownerId)
                .where("id", "in", ids)
                .execute()
            ).map((r) => r.id),
    });
  }

  /** Turns on reading code steps' props (app.ts: the runtime's describer). */
  useDescriber(describer: ComponentDescriber): void {
    this.describer = describer;
  }

  private describerOrFail(): ComponentDescriber {
    if (!this.describer)
      throw new ComponentLoadError("invalid_component", "this server runs without the runtime, which reads a step's props");
    return this.describer;
  }

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
      version: Number(row.version ?? 1),
      ...triggersAnswer(parseTriggersJson(row.triggers_json)),
    };
  }

  /**
   * Names every step (step_1, step_2, … by default), keeps ids of unchanged steps, checks code;
   * action steps are resolved and their props checked (the caller binds their accounts).
   */
  async buildSteps(
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
      out.push({ id: kept?.id ?? newId("cell"), name, code, ...configuredOf(s) });
    }
    return out;
  }

  /**
   * Binds the steps' accounts in the transaction that writes them (inline credentials become
   * accounts, and the accounts the steps use are the workflow's uses).
   */
  private async bindIn(trx: Db, ownerId: string, id: string, name: string, steps: WorkflowStep[]): Promise<WorkflowStep[]> {
    return this.actionSteps ? this.actionSteps.bind(trx, { userId: ownerId, id, name }, steps) : steps;
  }

  async create(
    ownerId: string,
    body: CreateWorkflowBody,
    requester: Requester = { userId: ownerId, admin: false },
  ): Promise<Workflow> {
    const now = Date.now();
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
      created_at: Math.floor(now / 1000),
      updated_at: Math.floor(now / 1000),
      version: 1,
    };
    const none = parseTriggersJson(null);
    row.triggers_json = triggersJson({ ...none, ...triggerFieldsOf(body, none) });
    const built = await this.buildSteps(requester, body.steps);
    await this.stepProps.check(ownerId, built);
    await this.db.transaction().execute(async (trx) => {
      await this.stepProps.recheckAccounts(ownerId, built, trx);
      row.steps_json = JSON.stringify(await this.bindIn(trx, ownerId, row.id, row.name, built));
      await insertWorkflow(trx, row);
      await syncSchedulesIn(trx, undefined, row, now);
      await insertVersionIn(trx, versionRow(row, contentOfRow(row), { origin: "create" }, now));
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
    const { steps, active, base_version, message, origin, schedules, http_auth, ...fields } = body;
    return this.change(
      ownerId,
      id,
      { ...fields, ...(steps ? { stepInputs: steps } : {}), triggerInputs: { schedules, http_auth } },
      {
        origin: origin ?? "update",
        ...(active !== undefined ? { active } : {}),
        ...(base_version !== undefined ? { baseVersion: base_version } : {}),
        ...(message !== undefined ? { message } : {}),
      },
      requester,
    );
  }

  /**
   * The one path of every change of a workflow's content (decisions.md "Building workflows"):
   * an update, a draft's deploy, a restore, a push. In one transaction, with the workflow's row
   * locked: a stale `baseVersion` is 409 `version_conflict` and changes nothing; a content that
   * differs from the current one is written with the next version, immutable; turning it on or
   * off is no version (turned on, its parked runs go on). Steps given as inputs are built (code
   * checked, actions resolved) before, against the steps they replace. undefined: no such workflow.
   */
  async change(
    ownerId: string,
    id: string,
    fields: ContentFields & { stepInputs?: StepInput[]; triggerInputs?: Parameters<typeof triggerFieldsOf>[0] },
    o: ChangeOptions,
    requester: Requester = { userId: ownerId, admin: false },
  ): Promise<Workflow | undefined> {
    const before = await getWorkflow(this.db, ownerId, id);
    if (!before) return undefined;
    const { stepInputs, triggerInputs, ...named } = fields;
    const built = stepInputs
      ? await this.buildSteps(requester, stepInputs, JSON.parse(before.steps_json) as WorkflowStep[])
      : undefined;
    // Every new set of steps (an update's, a push's, a deploy's, a restore's) has its code
    // steps' props checked before anything is written.
    if (built ?? named.steps) await this.stepProps.check(ownerId, (built ?? named.steps)!);
    let resumed = false;
    const changed = await this.db.transaction().execute(async (trx) => {
      const row = await lockWorkflowIn(trx, ownerId, id);
      if (!row) return undefined;
      const version = Number(row.version ?? 1);
      if (o.baseVersion !== undefined && o.baseVersion !== version) throw versionConflict(id, o.baseVersion, version);
      const current = contentOfRow(row);
      if (built ?? named.steps) await this.stepProps.recheckAccounts(ownerId, (built ?? named.steps)!, trx);
      const steps = (built ?? named.steps) && (await this.bindIn(trx, ownerId, id, named.name ?? row.name, (built ?? named.steps)!));
      const triggers = triggerInputs ? triggerFieldsOf(triggerInputs, current) : {};
      const next = changedContent(current, { ...named, ...triggers, ...(steps ? { steps } : {}) });
      const now = Date.now();
      const patch: Partial<WorkflowRow> = {};
      if (contentText(next) !== contentText(current)) {
        Object.assign(patch, rowColumnsOf(next), { version: version + 1, updated_at: Math.floor(now / 1000) });
        if (patch.steps_json !== row.steps_json) patch.deployment_id = newId("deployment");
        await insertVersionIn(trx, versionRow({ ...row, version: version + 1 }, next, o, now));
      }
      if (o.active !== undefined && (o.active ? 1 : 0) !== Number(row.active)) {
        patch.active = o.active ? 1 : 0;
        patch.updated_at = Math.floor(now / 1000);
        // Turned on again: the runs it parked while off go on (runner.ts).
        if (o.active) {
          await resumeParkedIn(trx, runTargetsOf(id), now);
          resumed = true;
        }
      }
      await o.alsoIn?.(trx);
      if (Object.keys(patch).length > 0) await updateWorkflow(trx, ownerId, id, patch);
      await syncSchedulesIn(trx, row, { ...row, ...patch }, now);
      return { ...row, ...patch };
    });
    if (!changed) return undefined;
    this.changed(id);
    if (resumed) for (const listener of this.resumeListeners) listener(id);
    return this.toResource(changed);
  }

  /**
   * Deletes the workflow with its runs, its versions and draft, and everything queued for it, in
   * one transaction: a run under way then finds its job gone when it commits (the job's delete
   * is its fence), so no run row outlives the workflow, and no target of it is left for the
   * queue to look at.
   */
  async delete(ownerId: string, id: string): Promise<boolean> {
    const actionSteps = this.actionSteps;
    const deleted = await this.db.transaction().execute(async (trx) => {
      const gone = await deleteWorkflow(trx, ownerId, id);
      if (!gone) return false;
      if (actionSteps) await actionSteps.holderDeleted(trx, ownerId, id);
      await dropQueueIn(trx, id, targetsOf(id));
      await deleteRunsOf(trx, id);
      await deleteHistoryIn(trx, id);
      await deleteTestRunsIn(trx, id);
      await syncSchedulesIn(trx, undefined, undefined, Date.now(), id);
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

/** A workflow's triggers as answered: the token never, only whether one is set. */
function triggersAnswer(t: WorkflowTriggers): Pick<Workflow, "schedules" | "http_auth"> {
  return { schedules: t.schedules, http_auth: httpAuthAnswer(t.http_auth) };
}
