/**
 * Two runs of a workflow compared, step by step (decisions.md "Building workflows", "Compare
 * runs"): for each step its status, duration and place in both runs, whether its code differed
 * between the code each run ran (a version's, or what a test of a draft or of local files ran),
 * with a unified diff from the other run's to this one's, and which paths of its return value
 * and exports differ. `with` is another run's id (production or test) or `last_success`: the
 * workflow's newest successful production run but this one. Every read is the owner's: another
 * user's workflow or run is not found.
 */
import { isId } from "../../../shared/ids.js";
import {
  COMPARE_PATHS_LIMIT,
  LAST_SUCCESS,
  type ComparedRun,
  type Run,
  type RunComparison,
  type RunStep,
  type StepComparison,
} from "../../../shared/resources/index.js";
import { stepText, unifiedDiff } from "../../../shared/step-diff.js";
import type { Db } from "../../store/db.js";
import { latestSuccessfulRun } from "../../store/repos/run-lookups.js";
import { getTestRun } from "../../store/repos/test-runs.js";
import { getVersion } from "../../store/repos/workflow-versions.js";
import { getWorkflow } from "../../store/repos/workflows.js";
import { runOfRow } from "../runs/record.js";
import type { RunService } from "../runs/service.js";
import { testRunOf, type TestedCode } from "../tests/test-runs.js";
import { parseContent } from "../versions/content.js";
import { differingPaths } from "./value-paths.js";

/** A comparison the API refuses: 400 for a `with` that names no run, 404 for a run not found. */
export class CompareInputError extends Error {
  constructor(
    message: string,
    readonly status: 400 | 404,
  ) {
    super(message);
  }
}

/** One of the two runs, with the text of each step's code as it ran (null: not known). */
interface Side {
  run: Run;
  codeOf: ComparedRun["code_of"];
  code: Map<string, string> | null;
}

/** Step statuses after which a step's return value and exports are what it ended with. */
const ENDED_WITH_VALUES = new Set<RunStep["status"]>(["success", "reused", "exited"]);

export class RunComparer {
  constructor(
    private readonly db: Db,
    private readonly runs: Pick<RunService, "get">,
  ) {}

  /** The comparison; undefined when the workflow is not the owner's. */
  async compare(
    ownerId: string,
    workflowId: string,
    runId: string,
    withRef: string,
  ): Promise<RunComparison | undefined> {
    if (!(await getWorkflow(this.db, ownerId, workflowId))) return undefined;
    if (withRef !== LAST_SUCCESS && !isId("run", withRef))
      throw new CompareInputError(
        `with: a run's id (r_...) or ${LAST_SUCCESS}, not ${JSON.stringify(withRef.slice(0, 60))}`,
        400,
      );
    const run = await this.side(ownerId, workflowId, runId);
    if (!run) throw new CompareInputError(`run ${runId} of workflow ${workflowId} not found`, 404);
    const other =
      withRef === LAST_SUCCESS
        ? await this.lastSuccess(ownerId, workflowId, runId)
        : await this.side(ownerId, workflowId, withRef);
    if (!other) throw new CompareInputError(`run ${withRef} of workflow ${workflowId} not found`, 404);
    return { run: compared(run), with: compared(other), steps: compareSteps(run, other) };
  }

  private async lastSuccess(ownerId: string, workflowId: string, runId: string): Promise<Side> {
    const row = await latestSuccessfulRun(this.db, ownerId, workflowId, runId);
    if (!row)
      throw new CompareInputError(
        `no successful run of workflow ${workflowId} other than ${runId} to compare it with`,
        404,
      );
    return this.withCode(ownerId, runOfRow(row, false), undefined);
  }

  /** A run of the workflow, production (also one still only in the queue) or test. */
  private async side(ownerId: string, workflowId: string, runId: string): Promise<Side | undefined> {
    const test = await getTestRun(this.db, ownerId, workflowId, runId);
    if (test) {
      const tested = (JSON.parse(test.trigger_json) as { tested?: TestedCode }).tested;
      return this.withCode(ownerId, testRunOf(test), tested);
    }
    const run = await this.runs.get(ownerId, workflowId, runId);
    return run && this.withCode(ownerId, run, undefined);
  }

  /** The run with the code it ran: its version's steps, or what its test recorded. */
  private async withCode(ownerId: string, run: Run, tested: TestedCode | undefined): Promise<Side> {
    const texts = (steps: Array<Parameters<typeof stepText>[0] & { name: string }>) =>
      new Map(steps.map((s) => [s.name, stepText(s)]));
    if (typeof run.version === "number") {
      const v = await getVersion(this.db, ownerId, run.workflow_id, run.version);
      if (v) return { run, codeOf: "version", code: texts(parseContent(v.content_json).steps) };
    }
    if (tested) return { run, codeOf: tested.of, code: texts(tested.steps) };
    return { run, codeOf: null, code: null };
  }
}

function compared(s: Side): ComparedRun {
  const r = s.run;
  return {
    id: r.id,
    status: r.status,
    test: r.test === true,
    version: typeof r.version === "number" ? r.version : null,
    code_of: s.codeOf,
    started_at_ms: r.started_at_ms,
    duration_ms: r.duration_ms,
    error: r.error,
  };
}

/** The steps of both, in the run's order; a step only `with` has comes after the step it follows there. */
export function stepOrder(run: string[], other: string[]): string[] {
  const out = [...new Set(run)];
  let after = -1;
  for (const name of other) {
    const at = out.indexOf(name);
    if (at >= 0) after = at;
    else out.splice(++after, 0, name);
  }
  return out;
}

/** How a side's code is named in a diff's header. */
function codeLabel(name: string, s: Side): string {
  const of =
    s.codeOf === "version" ? `version ${s.run.version}` : s.codeOf === "draft" ? "a draft" : "local steps";
  return `${name} in ${s.run.id} (${of})`;
}

function compareSteps(run: Side, other: Side): StepComparison[] {
  const indexed = (s: Side) =>
    new Map(s.run.steps.map((step, i) => [step.name, { step, position: i + 1 }] as const));
  const mine = indexed(run);
  const theirs = indexed(other);
  const names = stepOrder(
    run.run.steps.map((s) => s.name),
    other.run.steps.map((s) => s.name),
  );
  return names.map((name): StepComparison => {
    const a = mine.get(name);
    const b = theirs.get(name);
    const side = (x: typeof a) =>
      x ? { status: x.step.status, duration_ms: x.step.duration_ms, position: x.position } : null;
    const code = codeChange(name, run, other);
    const values = a && b ? valueChange(a.step, b.step) : null;
    return {
      name,
      run: side(a),
      with: side(b),
      status_changed: !a || !b || a.step.status !== b.step.status,
      code_changed: code.changed,
      code_diff: code.diff,
      differing_paths: values ? values.paths : null,
      paths_truncated: values ? values.truncated : false,
    };
  });
}

/** Whether the step's code differs between the two runs' code (a step one of them lacks: added or removed). */
function codeChange(name: string, run: Side, other: Side): { changed: boolean | null; diff: string | null } {
  if (!run.code || !other.code) return { changed: null, diff: null };
  const before = other.code.get(name) ?? "";
  const after = run.code.get(name) ?? "";
  if (before === after) return { changed: false, diff: null };
  return {
    changed: true,
    diff: unifiedDiff(before, after, { from: codeLabel(name, other), to: codeLabel(name, run) }),
  };
}

/** The paths of the return value and exports that differ, when the step ended with values in both runs. */
function valueChange(a: RunStep, b: RunStep): { paths: string[]; truncated: boolean } | null {
  if (!ENDED_WITH_VALUES.has(a.status) || !ENDED_WITH_VALUES.has(b.status)) return null;
  const returned = differingPaths(b.return_value, a.return_value, "$return_value", COMPARE_PATHS_LIMIT);
  if (returned.truncated) return returned;
  const exported = differingPaths(
    b.exports,
    a.exports,
    "exports",
    COMPARE_PATHS_LIMIT - returned.paths.length,
  );
  return { paths: [...returned.paths, ...exported.paths], truncated: exported.truncated };
}
