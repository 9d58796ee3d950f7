/**
 * Workflows' schedules tick here: one loop per server looks for due rows of
 * `workflow_schedules` and claims each tick with a compare-and-set that enqueues its run in the
 * same transaction (store/repos/workflow-schedules.ts), so with several servers on one database
 * exactly one starts each tick's run. The run is a production run (`trigger: {type: "SCHEDULE",
 * schedule}`) through the workflow's queue, so retries, concurrency and a throttle apply.
 *
 * A tick found late (the server was stopped, or busy) runs once, with the time it was due; the
 * next is counted from now, so ticks missed while no server ran are not made up. The loop sleeps
 * until the next due tick (at most `pollMs`, for rows other servers wrote).
 */
import type { Schedule } from "../../../shared/resources/index.js";
import { payloadText } from "../../runtime/queue-jobs.js";
import type {
  TickClaim,
  WorkflowScheduleRow,
  WorkflowSchedulesRepo,
} from "../../store/repos/workflow-schedules.js";
import { DueLoop } from "../../runtime/triggers/due-loop.js";
import { nextTick, tickEvent } from "./zone-time.js";

export interface ScheduleTickerOptions {
  pollMs?: number;
  /** Called with the workflows whose ticks were enqueued (wakes the queue for them). */
  onFired: (workflowIds: string[]) => void;
  log?: (msg: string, err?: unknown) => void;
  now?: () => number;
}

/** Due rows claimed per pass. */
const BATCH = 250;

/** The next tick after a due one at `now`: a cron's next after now; an interval's keeps its phase. */
export function followingTick(s: Schedule, dueAt: number, now: number): number {
  if ("cron" in s) return nextTick(s, Math.max(now, dueAt));
  const step = s.interval_seconds * 1000;
  return dueAt + step * Math.max(1, Math.ceil((now - dueAt + 1) / step));
}

export class ScheduleTicker {
  private readonly loop: DueLoop;

  constructor(
    private readonly repo: WorkflowSchedulesRepo,
    private readonly options: ScheduleTickerOptions,
  ) {
    this.loop = new DueLoop({
      fire: () => this.fireDue(),
      nextDue: () => this.repo.nextDue(),
      onError: (err) => this.options.log?.("schedules: tick failed", err),
      pollMs: options.pollMs,
      minWaitMs: 5,
      now: options.now,
    });
  }

  private now(): number {
    return this.options.now?.() ?? Date.now();
  }

  start(): void {
    this.loop.start();
  }

  stop(): Promise<void> {
    return this.loop.stop();
  }

  /** Looks for due ticks now (a workflow's schedules just changed here). */
  poke(): void {
    this.loop.poke();
  }

  private async fireDue(): Promise<void> {
    for (;;) {
      const now = this.now();
      const due = await this.repo.due(now, BATCH);
      const ticks = new Map<string, Tick>();
      const won = await this.repo.claimTicks(due.map((row) => claimOf(row, now, ticks)));
      if (won.length > 0) this.options.onFired([...new Set(won.map((c) => c.row.workflow_id))]);
      if (due.length < BATCH || this.loop.stopped) return;
    }
  }
}

/** What every row of one schedule due at one time shares: its run's event and its next tick. */
interface Tick {
  event: Record<string, unknown>;
  nextRunAt: number;
}

/**
 * A due row's claim: the tick's run as a job, and the row's next tick. Rows of one spec due at
 * one time share their Tick (`ticks`, per pass at one `now`): 1,000 workflows on one cron took
 * 1,000 cron parses and zone lookups, about a sixth of the CPU of their tick's claims and runs
 * (profiled), on the path of every run's start.
 */
function claimOf(row: WorkflowScheduleRow, now: number, ticks: Map<string, Tick>): TickClaim {
  const dueAt = Number(row.next_run_at);
  const key = `${dueAt} ${row.spec_json}`;
  let tick = ticks.get(key);
  if (!tick) {
    const schedule = JSON.parse(row.spec_json) as Schedule;
    tick = { event: tickEvent(schedule, dueAt), nextRunAt: followingTick(schedule, dueAt, now) };
    ticks.set(key, tick);
  }
  const job = {
    targetId: row.workflow_id,
    ownerId: row.owner_id,
    trigger: "schedule" as const,
    event: tick.event,
    schedule: Number(row.idx),
  };
  return {
    row: { ...row, next_run_at: dueAt },
    nextRunAt: tick.nextRunAt,
    job: { targetId: job.targetId, ownerId: job.ownerId, trigger: job.trigger, payload: payloadText(job) },
  };
}
