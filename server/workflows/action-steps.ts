/**
 * Action steps of a workflow (decisions.md "Actions"): `{name, action: "<key>", props}`. When
 * the step is saved its action is resolved as a run's is (the owner's own component of type
 * action, else the registry's or the vendor's package) and saved with its component id, so the
 * workflow keeps running the code it was saved with; its props are checked, except those that
 * refer to earlier steps (`{{ steps.<path> }}`, resolved in the sandbox at run time).
 *
 * Its app props' accounts are the workflow's account uses, as `<step>.<prop>`: an account's
 * `used_by` counts them and its delete is refused while they exist. A code step's app props
 * (its `configured_props`, checked by step-props/) are uses the same way. Inline `$auth` values
 * become accounts of the owner (only the reference is stored), as a source's do.
 */
import { newId } from "../../shared/ids.js";
import { accountIdOf, type CreateWorkflowBody, type PropDescriptor, type WorkflowStep } from "../../shared/resources/index.js";
import type { ActionService } from "../actions/service.js";
import { stepProps } from "../actions/props.js";
import type { AccountReferences, Holder } from "../accounts/references.js";
import { InvalidRequestError, NotFoundError } from "../errors.js";
import type { Db } from "../store/db.js";
import type { Requester } from "../users/requester.js";

export type StepInput = CreateWorkflowBody["steps"][number];

export interface ActionStepDeps {
  actions: Pick<ActionService, "resolve">;
  accounts: Pick<AccountReferences, "bind" | "holderDeleted">;
}

export class ActionSteps {
  /** App props of each saved action, by component id (what bind needs to know of them). */
  private readonly appProps = new Map<string, PropDescriptor[]>();

  constructor(private readonly deps: ActionStepDeps) {}

  async build(requester: Requester, index: number, name: string, input: StepInput, previous: WorkflowStep[]): Promise<WorkflowStep> {
    const action = input.action!;
    let resolved;
    try {
      resolved = await this.deps.actions.resolve(requester, action.startsWith("sc_") ? { component_id: action } : { key: action });
    } catch (err) {
      // An unknown action is the step's fault: a 400 naming it, not a 404 of the workflow.
      if (err instanceof NotFoundError) throw new InvalidRequestError(`steps[${index}]: ${err.message}`, "validation_failed", [{ path: `steps.${index}.action`, message: err.message }]);
      throw err;
    }
    const row = resolved.row!;
    this.appProps.set(row.id, resolved.props.filter((p) => p.type === "app"));
    // Read by bind() in the same write; only the latest few are worth keeping.
    while (this.appProps.size > 1000) this.appProps.delete(this.appProps.keys().next().value!);
    const props = stepProps(resolved.props, input.props ?? {}, name);
    const same = (p: WorkflowStep) => p.name === name && p.action === action && p.component_id === row.id && JSON.stringify(p.props) === JSON.stringify(props);
    return {
      id: previous.find(same)?.id ?? newId("cell"),
      name,
      code: `// action ${action} (${row.name} ${row.version}): run with this step's props`,
      action,
      component_id: row.id,
      props,
    };
  }

  /**
   * Binds every action step's app props in the workflow's transaction: references checked
   * (another user's account is a 404), inline credentials made accounts, the uses recorded.
   * Returns the steps as stored.
   */
  async bind(trx: Db, holder: Holder, steps: WorkflowStep[]): Promise<WorkflowStep[]> {
    const descriptors: PropDescriptor[] = [];
    const configured: Record<string, unknown> = {};
    for (const step of steps) {
      if (step.action === undefined) {
        for (const [name, value] of Object.entries(step.configured_props ?? {})) {
          if (accountIdOf(value) === undefined) continue;
          descriptors.push({ name: `${step.name}.${name}`, type: "app" });
          configured[`${step.name}.${name}`] = value;
        }
        continue;
      }
      if (!step.component_id) continue;
      for (const p of this.appProps.get(step.component_id) ?? []) {
        const value = step.props?.[p.name];
        if (value === undefined) continue;
        descriptors.push({ ...p, name: `${step.name}.${p.name}` });
        configured[`${step.name}.${p.name}`] = value;
      }
    }
    const bound = await this.deps.accounts.bind(trx, holder, descriptors, configured);
    return steps.map((step) => {
      if (step.action === undefined) return step;
      const props = { ...step.props };
      for (const key of Object.keys(props)) {
        const k = `${step.name}.${key}`;
        if (k in bound) props[key] = bound[k];
      }
      return { ...step, props };
    });
  }

  holderDeleted(trx: Db, userId: string, workflowId: string): Promise<void> {
    return this.deps.accounts.holderDeleted(trx, userId, workflowId);
  }
}
