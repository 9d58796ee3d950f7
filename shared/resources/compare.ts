/**
 * Two runs of a workflow compared, step by step (decisions.md "Building workflows", "Compare
 * runs"): `GET /workflows/{id}/runs/{run_id}/compare?with=<run_id | last_success>`. For each
 * step (matched by name, in the run's order, a step only `with` has after the step it follows
 * there): its status, duration and position in each run, whether its code differed between the
 * code the two runs ran (with a unified diff from `with`'s to the run's), and which paths of its
 * return value and exports differ. A step only one run has is `null` on the other side.
 */
import * as z from "../zod.js";
import { RunError, RunStatus, StepStatus } from "./run.js";

const Int = z.number().check(z.int());

/** What `with` may name besides a run's id: the workflow's newest successful production run but this one. */
export const LAST_SUCCESS = "last_success";

/** Query of the comparison: the other run, by id (a production or a test run), or `last_success`. */
export const CompareRunsQuery = z.object({
  with: z.string().check(z.minLength(1), z.maxLength(200)),
});
export type CompareRunsQuery = z.infer<typeof CompareRunsQuery>;

/** Whose code a run ran: a version's, a draft's or the steps given to a test run; null when that is not known. */
export const CODE_SOURCES = ["version", "draft", "steps"] as const;

/** One of the two runs, as the comparison names it. */
export const ComparedRun = z.object({
  id: z.string(),
  status: RunStatus,
  test: z.boolean(),
  /** The workflow's version it ran (null: a test of a draft or of given steps, or a run from before versions). */
  version: z.nullable(Int),
  /** Where its code came from (null: not recorded, so its steps' code cannot be compared). */
  code_of: z.nullable(z.enum(CODE_SOURCES)),
  started_at_ms: z.nullable(Int),
  duration_ms: z.nullable(Int),
  error: z.nullable(RunError),
});
export type ComparedRun = z.infer<typeof ComparedRun>;

/** A step as one of the runs has it. */
export const ComparedStep = z.object({
  status: StepStatus,
  duration_ms: z.nullable(Int),
  /** Its place in that run's steps, from 1. */
  position: Int,
});
export type ComparedStep = z.infer<typeof ComparedStep>;

/** The most paths of values listed per step (`paths_truncated` says when more differ). */
export const COMPARE_PATHS_LIMIT = 100;

export const StepComparison = z.object({
  name: z.string(),
  /** The step in the run compared; null when that run has no step of this name. */
  run: z.nullable(ComparedStep),
  /** The step in the other run (`with`); null when it has none of this name. */
  with: z.nullable(ComparedStep),
  /** Its status differs between the runs (a step only one run has counts as changed). */
  status_changed: z.boolean(),
  /**
   * Whether the step's code (an action step: its action and props) differs between the code the
   * two runs ran; a step only one run has counts as changed. null: the code of a run is not known.
   */
  code_changed: z.nullable(z.boolean()),
  /** A unified diff of the step's code from `with`'s to the run's, when it changed; else null. */
  code_diff: z.nullable(z.string()),
  /**
   * Paths of the return value and exports that differ (`$return_value.items[2].id`,
   * `exports.total`); [] when equal. null when the step did not end with values in both runs
   * (it failed, was skipped, or is in one run only).
   */
  differing_paths: z.nullable(z.array(z.string())),
  /** More paths differ than the COMPARE_PATHS_LIMIT listed. */
  paths_truncated: z.boolean(),
});
export type StepComparison = z.infer<typeof StepComparison>;

export const RunComparison = z.object({
  run: ComparedRun,
  with: ComparedRun,
  steps: z.array(StepComparison),
});
export type RunComparison = z.infer<typeof RunComparison>;
