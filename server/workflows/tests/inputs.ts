/**
 * What a test run runs (decisions.md "Building workflows"): its steps (given, the draft's, or the
 * current version's), its event (given, an event's or a run's, or the workflow's latest trigger
 * event), and the results it reuses from an earlier run (`from_step`). Every read is the owner's.
 */
import type { RunStep, TestRunBody, WorkflowStep } from "../../../shared/resources/index.js";
import type { Db } from "../../store/db.js";
import { getRun, listRuns, type RunRow } from "../../store/repos/runs.js";
import { getTestRun, latestTestRun } from "../../store/repos/test-runs.js";
import { getDraft } from "../../store/repos/workflow-versions.js";
import type { WorkflowRow } from "../../store/repos/workflows.js";
import type { Requester } from "../../users/requester.js";
import type { WorkflowService } from "../service.js";
import { parseContent } from "../versions/content.js";
import type { PlannedStep } from "../runs/record.js";

/** A test run the service refuses: a 400 (or a 404 for a run or event not found) for the API. */
export class TestInputError extends Error {
  constructor(
    message: string,
    readonly status: 400 | 404 = 400,
  ) {
    super(message);
  }
}

/** The steps to test: given (as the CLI sends local files), else the draft's, else the current version's. */
export async function stepsToTest(
  db: Db,
  workflows: WorkflowService,
  wf: WorkflowRow,
  body: TestRunBody,
  requester: Requester,
): Promise<{ steps: WorkflowStep[]; of: "steps" | "draft" | "version" }> {
  const current = JSON.parse(wf.steps_json) as WorkflowStep[];
  if (body.steps) {
    const inputs = body.steps.map((s) => (s.action !== undefined ? s : { ...s, code: s.code ?? "" }));
    const steps = await workflows.buildSteps(requester, inputs, current);
    await workflows.stepProps.check(wf.owner_id, steps);
    return { steps, of: "steps" };
  }
  const draft = await getDraft(db, wf.owner_id, wf.id);
  if (!draft) return { steps: current, of: "version" };
  // Built as a deploy builds them: code checked, action steps resolved.
  const drafted = parseContent(draft.content_json).steps.map((s) =>
    s.action !== undefined
      ? { name: s.name, action: s.action, ...(s.props ? { props: s.props } : {}) }
      : { name: s.name, code: s.code, ...(s.configured_props ? { configured_props: s.configured_props } : {}) },
  );
  const steps = await workflows.buildSteps(requester, drafted, current);
  // A draft whose props are not right yet is not tested with them: the same 400 a deploy gives.
  await workflows.stepProps.check(wf.owner_id, steps);
  return { steps, of: "draft" };
}

/** A production or test run of the workflow. */
async function anyRun(db: Db, wf: WorkflowRow, runId: string): Promise<RunRow | undefined> {
  return (await getRun(db, wf.owner_id, wf.id, runId)) ?? (await getTestRun(db, wf.owner_id, wf.id, runId));
}

/** The event to test on (see the file's comment), as its JSON text. */
export async function eventToTest(db: Db, wf: WorkflowRow, body: TestRunBody): Promise<string> {
  if (body.event !== undefined) return JSON.stringify(body.event);
  if (body.run_id !== undefined) {
    const run = await anyRun(db, wf, body.run_id);
    if (!run) throw new TestInputError(`run ${body.run_id} of workflow ${wf.id} not found`, 404);
    return run.event_json;
  }
  if (body.event_id !== undefined) {
    // The owner's event of that id, from an emitter this workflow listens to first.
    const rows = await db
      .selectFrom("events")
      .leftJoin("subscriptions", (join) =>
        join
          .onRef("subscriptions.emitter_id", "=", "events.emitter_id")
          .on("subscriptions.listener_id", "=", wf.id),
      )
      .select(["events.event_json", "subscriptions.listener_id"])
      .where("events.owner_id", "=", wf.owner_id)
      .where("events.id", "=", body.event_id)
      .limit(10)
      .execute();
    const row = rows.find((r) => r.listener_id !== null) ?? rows[0];
    if (!row) throw new TestInputError(`event ${body.event_id} not found`, 404);
    return row.event_json;
  }
  const latest = await listRuns(db, wf.owner_id, wf.id, undefined, { limit: 1 });
  return latest.rows[0]?.event_json ?? "{}";
}

/** The steps as planned: those before `from_step` reuse the results of `run_id` (default: the latest test run). */
export async function planTest(
  db: Db,
  wf: WorkflowRow,
  steps: WorkflowStep[],
  body: TestRunBody,
): Promise<{ planned: PlannedStep[]; upTo: number }> {
  const indexOf = (ref: string, what: string) => {
    const at = steps.findIndex((s) => s.name === ref || s.id === ref);
    if (at < 0) throw new TestInputError(`${what}: no step "${ref}" (the steps: ${steps.map((s) => s.name).join(", ")})`);
    return at;
  };
  const upTo = body.to_step === undefined ? steps.length - 1 : indexOf(body.to_step, "to_step");
  if (body.from_step === undefined) return { planned: steps.map((s) => ({ ...s })), upTo };
  const from = indexOf(body.from_step, "from_step");
  if (from > upTo) throw new TestInputError(`from_step "${body.from_step}" comes after to_step "${body.to_step}"`);
  const earlier = body.run_id !== undefined ? await anyRun(db, wf, body.run_id) : await latestTestRun(db, wf.owner_id, wf.id);
  if (!earlier && from > 0)
    throw new TestInputError(`from_step: there is no earlier run to take the results of the steps before "${body.from_step}" from`);
  const ran = new Map(((earlier ? JSON.parse(earlier.steps_json) : []) as RunStep[]).map((s) => [s.name, s]));
  const planned = steps.map((s, i): PlannedStep => {
    if (i >= from) return { ...s };
    const was = ran.get(s.name);
    if (!was || (was.status !== "success" && was.status !== "reused"))
      throw new TestInputError(
        `from_step: step "${s.name}" did not complete in run ${earlier!.id}, so the test cannot start after it`,
      );
    return { ...s, reused: { return_value: was.return_value ?? null, exports: was.exports ?? {} } };
  });
  return { planned, upTo };
}
