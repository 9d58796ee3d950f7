/**
 * Keeps `workflow_schedules` in step with a workflow, in the transaction that changes it: an
 * active workflow has one row per schedule; an inactive or deleted one has none (so it does not
 * tick). A change that leaves its schedules and its active state as they were keeps its rows (an
 * interval keeps its phase); any other replaces them, each next tick counted from now (ticks
 * missed meanwhile are not made up).
 */
import type { Kysely } from "kysely";
import type { Database } from "../../store/schema.js";
import { replaceSchedulesIn } from "../../store/repos/workflow-schedules.js";
import type { WorkflowRow } from "../../store/repos/workflows.js";
import { parseTriggersJson } from "./triggers.js";
import { nextTick } from "./zone-time.js";

type Side = Pick<WorkflowRow, "id" | "owner_id" | "active" | "triggers_json">;

const schedulesText = (w: Side | undefined): string =>
  w && Number(w.active) === 1 ? JSON.stringify(parseTriggersJson(w.triggers_json).schedules) : "[]";

/** `before` and `after`: the workflow's row on each side of the change (undefined: none); `id` for a delete. */
export async function syncSchedulesIn(
  trx: Kysely<Database>,
  before: Side | undefined,
  after: Side | undefined,
  now: number,
  id = after?.id ?? before?.id,
): Promise<void> {
  if (!id) return;
  const want = schedulesText(after);
  if (before && after && want === schedulesText(before)) return;
  if (!before && after && want === "[]") return;
  const schedules =
    after && Number(after.active) === 1 ? parseTriggersJson(after.triggers_json).schedules : [];
  await replaceSchedulesIn(
    trx,
    id,
    schedules.map((s, idx) => ({
      workflow_id: id,
      idx,
      owner_id: after!.owner_id,
      spec_json: JSON.stringify(s),
      next_run_at: nextTick(s, now),
    })),
  );
}
