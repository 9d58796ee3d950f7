/**
 * The steps of a workflow's version, as a run needs them (decisions.md "Building workflows": a
 * run goes on with the version it started with, also after a deploy, a restart, or on another
 * instance). A version never changes, so what was read once is kept: a run of the current
 * version reads nothing more, one of an older version reads it once per process.
 */
import type { WorkflowStep } from "../../../shared/resources/index.js";
import type { Db } from "../../store/db.js";
import { findVersion } from "../../store/repos/workflow-versions.js";
import type { WorkflowRow } from "../../store/repos/workflows.js";
import { parseContent } from "./content.js";

/** Versions kept at most (the oldest read goes first). */
const KEEP = 1000;

export class VersionSteps {
  private readonly kept = new Map<string, WorkflowStep[]>();

  constructor(private readonly db: Db) {}

  /** The steps of `version` of the workflow; its current steps when that is the version (or it is gone). */
  async of(current: { row: WorkflowRow; steps: WorkflowStep[] }, version: number): Promise<WorkflowStep[]> {
    if (version === Number(current.row.version ?? 1)) return current.steps;
    const key = `${current.row.id}\u0000${version}`;
    const kept = this.kept.get(key);
    if (kept) return kept;
    const row = await findVersion(this.db, current.row.id, version);
    if (!row) return current.steps;
    const steps = parseContent(row.content_json).steps;
    this.kept.set(key, steps);
    if (this.kept.size > KEEP) this.kept.delete(this.kept.keys().next().value!);
    return steps;
  }
}
