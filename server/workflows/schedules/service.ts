/**
 * Run now and the coming ticks of a workflow (decisions.md "Workflow triggers"). Every read is
 * scoped to the owner: another user's workflow is not found.
 *
 * Run now starts a production run (`trigger: {type: "MANUAL"}`) as a job on the workflow's own
 * queue target, so retries, concurrency and a throttle apply as to any run. An inactive workflow
 * is refused (409 `workflow_inactive`, as a re-run is): its queue parks runs until it is turned
 * on, and a run that starts hours later is not what "now" says. The builder's Test workflow runs
 * a workflow that is being built.
 */
import { runIdOfJob } from "../../../shared/ids.js";
import { ERROR_CODES, type Run, type ScheduleTick } from "../../../shared/resources/index.js";
import { ConflictError } from "../../errors.js";
import type { InvocationQueue } from "../../services.js";
import type { Db } from "../../store/db.js";
import { newJobId } from "../../store/repos/jobs.js";
import { schedulesOfWorkflow } from "../../store/repos/workflow-schedules.js";
import { getWorkflow } from "../../store/repos/workflows.js";
import type { RunService } from "../runs/service.js";
import { parseTriggersJson } from "./triggers.js";
import { localTimeOf, nextTick, zoneOf } from "./zone-time.js";

export class WorkflowTriggerService {
  constructor(
    private readonly db: Db,
    private readonly queue: Pick<InvocationQueue, "enqueueIn" | "wake">,
    private readonly runs: Pick<RunService, "get">,
    private readonly now: () => number = Date.now,
  ) {}

  /** The queued run (undefined: no such workflow of the owner's). */
  async runNow(ownerId: string, workflowId: string, event: unknown): Promise<Run | undefined> {
    const wf = await getWorkflow(this.db, ownerId, workflowId);
    if (!wf) return undefined;
    if (Number(wf.active) !== 1)
      throw new ConflictError(
        `workflow ${workflowId} is inactive: turn it on to run it (or test it in the builder)`,
        ERROR_CODES.workflowInactive,
      );
    const jobId = newJobId();
    await this.queue.enqueueIn(this.db, [
      { targetId: workflowId, ownerId, trigger: "manual", event: event === undefined ? {} : event, jobId },
    ]);
    this.queue.wake([workflowId]);
    const runId = runIdOfJob(jobId);
    // Read as the runs API reads it: a queued job, a run under way, or its record once ended.
    for (let tries = 0; tries < 5; tries++) {
      const run = await this.runs.get(ownerId, workflowId, runId);
      if (run) return run;
      await new Promise((r) => setTimeout(r, 20));
    }
    throw new Error(`run ${runId} was queued but cannot be read back`);
  }

  /**
   * The workflow's next `count` ticks over all its schedules, in time order. An active
   * interval's come from its stored next tick (its phase); otherwise each counts from now.
   */
  async nextTicks(ownerId: string, workflowId: string, count: number): Promise<ScheduleTick[] | undefined> {
    const wf = await getWorkflow(this.db, ownerId, workflowId);
    if (!wf) return undefined;
    const schedules = parseTriggersJson(wf.triggers_json).schedules;
    const rows = Number(wf.active) === 1 ? await schedulesOfWorkflow(this.db, workflowId) : [];
    const now = this.now();
    const ticks: ScheduleTick[] = [];
    schedules.forEach((s, i) => {
      const row = rows.find((r) => Number(r.idx) === i && r.spec_json === JSON.stringify(s));
      let at = row ? Number(row.next_run_at) : nextTick(s, now);
      const zone = zoneOf(s);
      for (let n = 0; n < count; n++) {
        ticks.push({
          schedule: i,
          at_ms: at,
          at: new Date(at).toISOString(),
          timezone: zone,
          local: localTimeOf(zone, at),
        });
        at = nextTick(s, at);
      }
    });
    return ticks.sort((a, b) => a.at_ms - b.at_ms || a.schedule - b.schedule).slice(0, count);
  }
}
