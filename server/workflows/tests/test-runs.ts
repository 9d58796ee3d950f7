/**
 * Test runs (decisions.md "Building workflows"): a workflow's draft (or current version, or the
 * steps given) run at once on a chosen event, for real (its HTTP calls are real), but nothing it
 * produces leaves the run: its emits are recorded on their steps and neither stored nor
 * delivered, `$.respond` is recorded as its response and sent to nobody, a `$.flow.delay` is
 * recorded and the test goes straight on, and an error emits no `$errors` event and is not
 * retried. It starts at once (no queue, no concurrency or throttle; an inactive workflow too),
 * counts toward the owner's daily quota as any run (not in the workflow's stats), and is kept
 * apart from production runs (store/repos/test-runs.ts).
 */
import { randomUUID } from "node:crypto";
import { runIdOfJob } from "../../../shared/ids.js";
import {
  RUN_LIMITS,
  type Run,
  type RunResponse,
  type RunStep,
  type TestRunBody,
  type WorkflowStep,
} from "../../../shared/resources/index.js";
import type { Quotas } from "../../quotas/quotas.js";
import type { WriteGroup } from "../../store/write-group.js";
import type { RunWorkflowSteps, RunWorkflowStepsResult } from "../../runtime/workflow-steps.js";
import type { Db } from "../../store/db.js";
import { newJobId } from "../../store/repos/jobs.js";
import type { RunRow } from "../../store/repos/runs.js";
import { addUsageIn } from "../../store/repos/quotas.js";
import { saveTestRunIn } from "../../store/repos/test-runs.js";
import { getWorkflow, type WorkflowRow } from "../../store/repos/workflows.js";
import type { Requester } from "../../users/requester.js";
import { endedRow, finishedRun, plannedSteps, runningRow, runOfRow, type PlannedStep, type RunHeader } from "../runs/record.js";
import { responseOf } from "../runs/respond.js";
import type { WorkflowService } from "../service.js";
import { eventToTest, planTest, stepsToTest } from "./inputs.js";

/** How long `POST /workflows/{id}/test` waits for the run to end before it answers 202 with it as it is. */
export const TEST_WAIT_MS = 60_000;

export interface TestRunsOptions {
  db: Db;
  workflows: WorkflowService;
  runSteps: RunWorkflowSteps;
  quotas?: Pick<Quotas, "countFor" | "counted">;
  /** The write transactions of the turn (SQLite groups them): the ended run commits with its count. */
  writes?: WriteGroup;
  log?: (msg: string, err?: unknown) => void;
}

/**
 * The code a test of a draft or of given steps ran: kept in its row's trigger (`tested`, never
 * answered), so that the run can be compared with another (workflows/compare/) after the draft
 * or the local files have changed. A test of the current version names its version instead.
 */
export interface TestedCode {
  of: "draft" | "steps";
  steps: Array<Pick<WorkflowStep, "name" | "code" | "action" | "props" | "configured_props">>;
}

/** A test run's resource: as any run, marked `test` (the code it ran is the comparison's, not answered). */
export const testRunOf = (row: RunRow, cutEvent = false): Run => {
  const run = runOfRow(row, cutEvent);
  const { tested: _tested, ...trigger } = run.trigger as Run["trigger"] & { tested?: TestedCode };
  return { ...run, trigger, test: true };
};

/** What a test of the draft or of given steps ran (see TestedCode). */
const testedCode = (of: "draft" | "steps", steps: WorkflowStep[]): TestedCode => ({
  of,
  steps: steps.map((s) => ({
    name: s.name,
    code: s.code,
    ...(s.action !== undefined ? { action: s.action } : {}),
    ...(s.props !== undefined ? { props: s.props } : {}),
    ...(s.configured_props !== undefined ? { configured_props: s.configured_props } : {}),
  })),
});

/** A test run's row to write, and (once it has ended) its count toward the owner's quota. */
interface Ended {
  row: RunRow;
  usage?: ReturnType<Quotas["countFor"]>;
}

export class TestRuns {
  constructor(private readonly o: TestRunsOptions) {}

  /** The test run, ended (`done`) or still going after `waitMs`; undefined: no such workflow of the owner. */
  async start(
    ownerId: string,
    workflowId: string,
    body: TestRunBody,
    requester: Requester,
    waitMs = TEST_WAIT_MS,
  ): Promise<{ run: Run; done: boolean } | undefined> {
    const wf = await getWorkflow(this.o.db, ownerId, workflowId);
    if (!wf) return undefined;
    const { steps, of } = await stepsToTest(this.o.db, this.o.workflows, wf, body, requester);
    const eventJson = await eventToTest(this.o.db, wf, body);
    const { planned, upTo } = await planTest(this.o.db, wf, steps, body);
    const header: RunHeader = {
      id: runIdOfJob(newJobId()),
      workflowId,
      ownerId,
      trigger: of === "version" ? { type: "TEST" } : { type: "TEST", tested: testedCode(of, steps) },
      attempt: 1,
      createdMs: Date.now(),
      eventJson,
      ...(of === "version" ? { version: Number(wf.version ?? 1) } : {}),
    };
    const startedMs = Date.now();
    const running = this.execute(wf, header, planned, upTo, startedMs);
    let wake: () => void = () => undefined;
    const timer = setTimeout(() => wake(), waitMs);
    const waited = await Promise.race([
      running.then((ended) => ({ ended })),
      new Promise<undefined>((resolve) => (wake = () => resolve(undefined))),
    ]).finally(() => clearTimeout(timer));
    if (waited) {
      await this.save(waited.ended);
      return { run: testRunOf(waited.ended.row), done: true };
    }
    // Still going: readable as running until it ends (its end is written after this).
    const start = runningRow(header, plannedSteps(planned), startedMs);
    await this.save({ row: start });
    void running
      .then((ended) => this.save(ended))
      .catch((err: unknown) => this.o.log?.(`test run ${header.id} of ${workflowId} failed`, err));
    return { run: testRunOf(start), done: false };
  }

  /**
   * Writes the run's row and, once it has ended, its count toward the owner's quota, in one
   * transaction: a commit is the dearest statement on SQLite, and the answer waits for this one.
   */
  private async save({ row, usage }: Ended): Promise<void> {
    const unit = async (trx: Db) => {
      await saveTestRunIn(trx, row);
      if (usage) await addUsageIn(trx, usage.userId, usage.day, usage.invocations, usage.computeMs);
    };
    await (this.o.writes ? this.o.writes.run(unit) : this.o.db.transaction().execute(unit));
    if (usage) this.o.quotas?.counted(usage);
  }

  /** Runs the steps up to `upTo`, going straight on past each `$.flow.delay`; the run's row as it ended. */
  private async execute(
    wf: WorkflowRow,
    header: RunHeader,
    planned: PlannedStep[],
    upTo: number,
    startedMs: number,
  ): Promise<Ended> {
    let plan = planned.slice(0, upTo + 1);
    const emits = new Map<number, Array<{ channel: string; data: unknown }>>();
    let response: RunResponse | null = null;
    let result: RunWorkflowStepsResult;
    let computeMs = 0;
    let ran = false;
    const context = {
      id: randomUUID(),
      ts: new Date(startedMs).toISOString(),
      workflow_id: wf.id,
      deployment_id: wf.deployment_id,
      source_type: "TEST",
      owner_id: wf.owner_id,
      run_id: header.id,
      test: true,
    };
    for (let segment = 0; ; segment++) {
      result = await this.o.runSteps({
        steps: plan,
        triggerEvent: JSON.parse(header.eventJson) as unknown,
        context,
        ownerId: wf.owner_id,
        respond: (given) => {
          response ??= responseOf(given);
        },
      });
      computeMs += result.computeMs;
      ran ||= result.ran;
      for (const e of result.emits) {
        const list = emits.get(e.step ?? 0) ?? [];
        list.push({ channel: e.channel === "" ? "default" : e.channel, data: e.data });
        emits.set(e.step ?? 0, list);
      }
      const delay = result.delay;
      if (!delay || segment > plan.length) break;
      // Recorded (its return value says when it would go on), and the test goes straight on.
      const records = finishedRun(plan, result).steps;
      plan = plan.map((s, i) =>
        i <= delay.step
          ? { ...s, kept: records[i], reused: { return_value: records[i]!.return_value, exports: records[i]!.exports } }
          : s,
      );
    }
    // Counted as any run (not in the workflow's stats: no target), committed with the row.
    const usage = ran ? this.o.quotas?.countFor(wf.owner_id, computeMs) : undefined;
    const run = finishedRun(plan, result);
    run.steps = withEmits(run.steps, emits).concat(
      plannedSteps(planned.slice(upTo + 1)).map((s): RunStep => ({ ...s, status: "skipped" })),
    );
    const row = endedRow(header, run, startedMs, Math.max(Date.now(), startedMs + 1), response);
    return usage ? { row, usage } : { row };
  }
}

/** Each step's recorded emits, within the run's values budget (past it the rest is cut, `truncated`). */
function withEmits(steps: RunStep[], emits: Map<number, Array<{ channel: string; data: unknown }>>): RunStep[] {
  let left = RUN_LIMITS.valueBytes;
  return steps.map((s, i) => {
    const list = emits.get(i);
    if (!list || s.status === "reused") return s;
    const kept: Array<{ channel: string; data: unknown }> = [];
    for (const e of list) {
      const size = Buffer.byteLength(JSON.stringify(e.data) ?? "null");
      if (size > left) return { ...s, emits: kept, truncated: true };
      left -= size;
      kept.push(e);
    }
    return { ...s, emits: kept };
  });
}
