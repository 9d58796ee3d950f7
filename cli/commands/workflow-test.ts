/**
 * `workflows test [dir] [--event FILE | --event-id ID] [--step NAME]` (decisions.md "Building
 * workflows"): a test run of a workflow folder's local files, nothing deployed. The folder's
 * steps (its .mjs files and action steps, read and checked as push reads them) run once on the
 * server as a test run of the workflow workflow.yaml names: for real (their HTTP calls are
 * real), but what they emit and answer is only recorded. Each step's result is printed: status,
 * duration, logs, return value, exports, what it would emit, and the answer recorded.
 *
 * The event: `--event FILE` (JSON; `-` reads it from stdin), `--event-id ID` (a stored event),
 * else the workflow's latest trigger event. `--step NAME` runs up to that step (the rest are
 * skipped): the steps a step reads come before it, so "test this step" means "run up to it".
 * A test needs the workflow on the server (the event, the accounts and the quota are its
 * owner's): a folder without an id is pushed first. Exit 1 when the run fails.
 */
import fs from "node:fs";
import path from "node:path";
import type { Command } from "commander";
import { ApiError, type Client } from "../../shared/client/index.js";
import {
  ENDED_RUN_STATUSES,
  type Run,
  type TestRunBody,
  type Workflow,
} from "../../shared/resources/index.js";
import type { Context } from "../context.js";
import { CliError, UsageError } from "../errors.js";
import type { Act } from "../options.js";
import { runDetails } from "../output/run-view.js";
import { resolveWorkflow } from "../sources.js";
import { readWorkflowFolder, WORKFLOW_FILE, type LocalWorkflow } from "../workflows/files.js";

/** How often a test still going after the server's wait (60 s) is read again. */
const POLL_MS = 1000;

export function registerWorkflowTest(workflows: Command, act: Act) {
  workflows
    .command("test")
    .description(
      "run the folder's steps once as a test run (nothing deployed) and print each step's result; exit 1 if it fails",
    )
    .argument("[dir]", "the folder (default: the current one)", ".")
    .option(
      "--event <file>",
      "the trigger event, a JSON file (- reads stdin); default: the workflow's latest trigger event",
    )
    .option("--event-id <id>", "take a stored event of this id as the trigger event")
    .option("--step <name>", "run up to this step only (the steps after it are skipped)")
    .action(act((ctx, [dir], opts) => test(ctx, dir ?? ".", opts)));
}

/** The event given with --event: the file's JSON (stdin for -), or a usage error naming the file. */
function eventFrom(file: string): unknown {
  const where = file === "-" ? "stdin" : file;
  let text: string;
  try {
    text = fs.readFileSync(file === "-" ? 0 : file, "utf8");
  } catch {
    throw new UsageError(`--event ${where}: no such file`);
  }
  try {
    return JSON.parse(text) as unknown;
  } catch (err) {
    throw new UsageError(`--event ${where}: not JSON: ${err instanceof Error ? err.message : String(err)}`);
  }
}

/** The test's body: the folder's steps, the event, and where to stop. */
function bodyOf(local: LocalWorkflow, opts: Record<string, unknown>): TestRunBody {
  const event = opts.event as string | undefined;
  const eventId = opts.eventId as string | undefined;
  const step = opts.step as string | undefined;
  if (event !== undefined && eventId !== undefined)
    throw new UsageError("give --event or --event-id, not both");
  if (step !== undefined && !local.steps.some((s) => s.name === step))
    throw new UsageError(
      `--step ${step}: the folder has no such step (its steps: ${local.steps.map((s) => s.name).join(", ")})`,
    );
  return {
    steps: local.steps.map((s) =>
      s.action !== undefined
        ? { name: s.name, action: s.action, props: s.props ?? {} }
        : {
            name: s.name,
            code: s.code,
            ...(s.configured_props ? { configured_props: s.configured_props } : {}),
          },
    ),
    ...(event !== undefined ? { event: eventFrom(event) } : {}),
    ...(eventId !== undefined ? { event_id: eventId } : {}),
    ...(step !== undefined ? { to_step: step } : {}),
  };
}

async function test(ctx: Context, dir: string, opts: Record<string, unknown>): Promise<void> {
  // Everything local is checked before anything is sent.
  const local = readWorkflowFolder(dir);
  const body = bodyOf(local, opts);
  const yamlPath = path.join(dir, WORKFLOW_FILE);
  if (local.file.id === undefined)
    throw new UsageError(
      `${yamlPath} has no id: a test runs as a test of a workflow on the server (its events, accounts and quota); headwater workflows push ${dir} creates it first`,
    );
  const { client } = await ctx.connect();
  const workflow = await resolveWorkflow(client, local.file.id);
  let run: Run;
  try {
    run = await client.testWorkflow(workflow.id, body);
  } catch (err) {
    // The event named was not found: say which (the server's 404 names it too).
    if (err instanceof ApiError && err.status === 404 && body.event_id !== undefined)
      throw new CliError(`no event ${body.event_id} of yours to test ${workflow.name} on`);
    throw err;
  }
  run = await untilEnded(ctx, client, workflow, run);
  const { out } = ctx;
  if (out.json) out.jsonLine(run);
  else {
    out.say(
      out.style.dim(
        `tested ${dir} as ${workflow.name} (${workflow.id}): a test run, nothing deployed, sent or stored as an event`,
      ),
    );
    out.stdout.write(runDetails(run, workflow, out.style));
  }
  if (run.status === "error") {
    const e = run.error;
    throw new CliError(
      `the test run failed${e ? `: ${e.step ? `step ${e.step}: ` : ""}${e.code}: ${e.message}` : ""}`,
    );
  }
}

/** The run once it ended: a test still going after the server's wait is read again until it ends. */
async function untilEnded(ctx: Context, client: Client, workflow: Workflow, run: Run): Promise<Run> {
  if (!ENDED_RUN_STATUSES.includes(run.status) && !ctx.out.json)
    ctx.out.info(
      ctx.out.errStyle.dim(`${run.id} is still ${run.status}: waiting for it to end (Ctrl-C stops waiting)`),
    );
  while (!ENDED_RUN_STATUSES.includes(run.status)) {
    await new Promise((r) => setTimeout(r, POLL_MS));
    if (ctx.signal.aborted) return run;
    run = await client.getWorkflowRun(workflow.id, run.id);
  }
  return run;
}
