/**
 * Code steps with props (decisions.md "Code steps with props"): what a code step's code declares
 * is read in the sandbox, as a component's is (runtime/describe.ts), and its `configured_props`
 * are checked against it on every change of a workflow's steps (create, update, push, a draft's
 * deploy, a restore): a bad value is 400 `invalid_step` naming the step and the prop, and
 * nothing changes. A draft takes them anyway and lists them in its `problems`.
 *
 * Reading the declarations starts a sandbox, so it is skipped for code that cannot declare
 * props (the word does not occur in it) and remembered by the code's hash: saving the same
 * code again, as the builder's autosave does, reads nothing.
 */
import { createHash } from "node:crypto";
import {
  accountIdOf,
  ERROR_CODES,
  type PropDescriptor,
  type StepProblem,
  type WorkflowStep,
} from "../../../shared/resources/index.js";
import { InvalidRequestError } from "../../errors.js";
import { ComponentLoadError, type ComponentDescriber } from "../../services.js";
import type { Db } from "../../store/db.js";
import { propIssues, type PropIssue } from "./registry.js";

export { STEP_PROP_TYPES } from "./registry.js";

export interface StepPropsDeps {
  /** Reads what code declares (absent on a server without the runtime: no props can be read). */
  describer?: ComponentDescriber | undefined;
  /** The owner's accounts among `ids`. */
  accounts(ownerId: string, ids: string[], db?: Db): Promise<Array<{ id: string; app: string }>>;
  /** The owner's data stores among `ids`. */
  dataStores(ownerId: string, ids: string[], db?: Db): Promise<string[]>;
}

/** Declarations remembered at most (the oldest read goes first). */
const KEEP = 1000;

const configuredOf = (s: WorkflowStep) => s.configured_props ?? {};

/** 400 `invalid_step` with one detail per bad value; nothing when there is none. */
function refuse(details: Array<{ path: string; message: string }>): void {
  if (details.length === 0) return;
  const said = details.map((d) => `${d.path}: ${d.message}`).join("; ");
  throw new InvalidRequestError(`invalid step props: ${said}`, ERROR_CODES.invalidStep, details);
}

export class StepProps {
  private readonly declaredByHash = new Map<string, PropDescriptor[]>();

  constructor(private readonly deps: StepPropsDeps) {}

  /** The props `code` declares, in order; rejects with ComponentLoadError when they cannot be read. */
  async declared(ownerId: string, code: string): Promise<PropDescriptor[]> {
    if (!/\bprops\b/.test(code)) return [];
    const hash = createHash("sha256").update(code).digest("hex");
    const known = this.declaredByHash.get(hash);
    if (known) return known;
    if (!this.deps.describer)
      throw new ComponentLoadError(
        "invalid_component",
        "this server runs without the runtime, which reads a step's props",
      );
    const d = await this.deps.describer.describe(code, undefined, { userId: ownerId, admin: false });
    this.declaredByHash.set(hash, d.props);
    if (this.declaredByHash.size > KEEP) this.declaredByHash.delete(this.declaredByHash.keys().next().value!);
    return d.props;
  }

  /** A code step's issues; its declarations too (undefined when they cannot be read). */
  private async issuesOf(
    ownerId: string,
    step: WorkflowStep,
    db?: Db,
  ): Promise<{ props?: PropDescriptor[]; issues: PropIssue[] }> {
    const configured = configuredOf(step);
    let props;
    try {
      props = await this.declared(ownerId, step.code);
    } catch (err) {
      if (!(err instanceof ComponentLoadError)) throw err;
      // Code whose props cannot be read still runs (and fails there, with its own error), as
      // before props existed; only values given for such props are refused now.
      if (Object.keys(configured).length === 0) return { issues: [] };
      return { issues: [{ message: `its props cannot be read: ${err.message}` }] };
    }
    const ctx = {
      ownerId,
      db,
      accounts: (ids: string[]) => this.deps.accounts(ownerId, ids, db),
      dataStores: (ids: string[]) => this.deps.dataStores(ownerId, ids, db),
    };
    return { props, issues: await propIssues(props, configured, ctx) };
  }

  /** The code steps' configured props checked: 400 `invalid_step` naming each step and prop. */
  async check(ownerId: string, steps: WorkflowStep[], db?: Db): Promise<void> {
    const details: Array<{ path: string; message: string }> = [];
    for (const step of steps) {
      if (step.action !== undefined) continue;
      for (const issue of (await this.issuesOf(ownerId, step, db)).issues)
        details.push({
          path: `steps.${step.name}.configured_props${issue.prop !== undefined ? `.${issue.prop}` : ""}`,
          message: issue.message,
        });
    }
    refuse(details);
  }

  /**
   * In the write's transaction, after check(): the accounts the code steps reference are still
   * the owner's (one deleted meanwhile is the same 400 as one that never was).
   */
  async recheckAccounts(ownerId: string, steps: WorkflowStep[], db: Db): Promise<void> {
    const refs = steps.flatMap((s) =>
      s.action !== undefined
        ? []
        : Object.entries(s.configured_props ?? {}).flatMap(([prop, v]) => {
            const id = accountIdOf(v);
            return id === undefined ? [] : [{ step: s.name, prop, id }];
          }),
    );
    if (refs.length === 0) return;
    const found = new Set(
      (await this.deps.accounts(ownerId, [...new Set(refs.map((r) => r.id))], db)).map((a) => a.id),
    );
    refuse(
      refs
        .filter((r) => !found.has(r.id))
        .map((r) => ({
          path: `steps.${r.step}.configured_props.${r.prop}`,
          message: `account ${r.id} not found`,
        })),
    );
  }

  /**
   * A draft's code steps (those whose code parses): what each declares, for the builder, and
   * what keeps the draft from being deployed.
   */
  async forDraft(
    ownerId: string,
    steps: WorkflowStep[],
    skip: Set<string>,
  ): Promise<{ props: Record<string, PropDescriptor[]>; problems: StepProblem[] }> {
    const props: Record<string, PropDescriptor[]> = {};
    const problems: StepProblem[] = [];
    for (const step of steps) {
      if (step.action !== undefined || skip.has(step.name)) continue;
      const found = await this.issuesOf(ownerId, step);
      if (found.props) props[step.name] = found.props;
      for (const issue of found.issues)
        problems.push({
          step: step.name,
          ...(issue.prop !== undefined ? { prop: issue.prop } : {}),
          line: null,
          column: null,
          message: issue.prop !== undefined ? `prop ${issue.prop}: ${issue.message}` : issue.message,
        });
    }
    return { props, problems };
  }
}
