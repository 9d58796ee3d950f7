/**
 * `runs <workflow>`: a workflow's runs (decisions.md "Workflow runs"), newest first, and with
 * `-f` each start, status change and end as it happens. `runs show <run>` is one run whole:
 * every step with its logs, return value, exports and error stack, and the HTTP answer.
 * `runs rerun <run> [--from <step>]` runs the same event again (the steps before `--from` are
 * reused from the earlier run) and shows the new run; exit 1 when it failed, as `run` does.
 * `runs cancel <run>` cancels a run that waits (queued, retrying, delayed): it never goes on.
 *
 * A run id alone is enough: the API reads a run only under its workflow, so without
 * `--workflow` the user's workflows are asked in turn (a handful at a time) until one has it.
 * `--workflow` (an id or name) makes that one request.
 */
import { Option, type Command } from "commander";
import { ApiError, pages, type Client } from "../../shared/client/index.js";
import {
  ENDED_RUN_STATUSES,
  RUN_STATUSES,
  type Run,
  type RunStatus,
  type Workflow,
} from "../../shared/resources/index.js";
import { isId } from "../../shared/ids.js";
import type { Context } from "../context.js";
import { apiErrorLine, CliError, UsageError } from "../errors.js";
import { followRuns } from "../follow/runs.js";
import { positiveInt, type Act } from "../options.js";
import { runColumns, runDetails, runLine } from "../output/run-view.js";
import { allWorkflows, resolveWorkflow } from "../sources.js";

export function registerRuns(program: Command, act: Act) {
  const runs = program
    .command("runs")
    .description("a workflow's runs, newest first; -f follows each start and end as it happens")
    .argument("<workflow>", "workflow id (p_...) or name")
    .option("-n, --limit <n>", "how many runs to show", positiveInt("--limit"), 20)
    .addOption(new Option("--status <status>", "only runs of this status").choices(RUN_STATUSES))
    .option("-f, --follow", "then print each run as it starts, changes status and ends (Ctrl-C stops)")
    .action(act((ctx, [ref], opts) => listRuns(ctx, ref!, opts)));
  runs
    .command("show")
    .description(
      "one run whole: each step's status, duration, logs, return value, exports and error, and the HTTP answer",
    )
    .argument("<run>", "the run's id (r_...)")
    .option(
      "--workflow <workflow>",
      "the run's workflow (id or name); without it your workflows are searched",
    )
    .action(act((ctx, [runId], opts) => showRun(ctx, runId!, opts)));
  runs
    .command("rerun")
    .description("run a run's event again as a new run, and show it (exit 1 when it fails)")
    .argument("<run>", "the run's id (r_...)")
    .option("--from <step>", "start at this step (name or id): the steps before it are reused from the run")
    .option(
      "--workflow <workflow>",
      "the run's workflow (id or name); without it your workflows are searched",
    )
    .action(act((ctx, [runId], opts) => rerun(ctx, runId!, opts)));
  runs
    .command("cancel")
    .description(
      "cancel a run that waits (queued, retrying or delayed): it never goes on; exit 1 for a run that runs or has ended",
    )
    .argument("<run>", "the run's id (r_...)")
    .option(
      "--workflow <workflow>",
      "the run's workflow (id or name); without it your workflows are searched",
    )
    .action(act((ctx, [runId], opts) => cancel(ctx, runId!, opts)));
}

async function listRuns(ctx: Context, ref: string, opts: Record<string, unknown>): Promise<void> {
  const follow = opts.follow === true;
  if (follow) ctx.endsOnSignal();
  const conn = await ctx.connect();
  const { client } = conn;
  const { out } = ctx;
  const workflow = await resolveWorkflow(client, ref);
  const status = opts.status as RunStatus | undefined;
  const limit = opts.limit as number;
  // The whole first page, unfiltered, too: a follow shows changes of the runs it has read, not them again.
  const [shown, known] = await Promise.all([
    newestRuns(client, workflow.id, limit, status),
    follow ? client.listWorkflowRuns(workflow.id, { limit: 100 }).then((p) => p.data) : Promise.resolve([]),
  ]);
  const what = `${workflow.name} (${workflow.id})`;
  if (shown.length === 0 && !out.json)
    out.info(`no runs${status ? ` with status ${status}` : ""} of ${what} yet`);
  if (!follow) {
    if (shown.length > 0) out.rows(shown, runColumns(out.style));
    return;
  }
  // A live log reads top to bottom: oldest first, as `events -f` prints.
  const print = (r: Run) => (out.json ? out.jsonLine(r) : out.stdout.write(runLine(r, out.style) + "\n"));
  for (const r of [...shown].reverse()) print(r);
  if (out.stderr.isTTY) out.info(out.errStyle.dim(`following the runs of ${what}; Ctrl-C stops`));
  await followRuns({
    client,
    apiKey: conn.apiKey,
    workflowId: workflow.id,
    status,
    known: [...known, ...shown],
    signal: ctx.signal,
    onRun: print,
    onStatus: (line) => out.info(out.errStyle.yellow(line)),
  });
}

/** The newest `n` runs (of `status`), newest first, over as many pages as that takes. */
async function newestRuns(
  client: Client,
  workflowId: string,
  n: number,
  status: RunStatus | undefined,
): Promise<Run[]> {
  const got: Run[] = [];
  const size = Math.min(100, n);
  for await (const r of pages(
    (q) => client.listWorkflowRuns(workflowId, { ...q, ...(status ? { status } : {}) }),
    size,
  )) {
    got.push(r);
    if (got.length >= n) break;
  }
  return got;
}

async function showRun(ctx: Context, runId: string, opts: Record<string, unknown>): Promise<void> {
  requireRunId(runId);
  const { client } = await ctx.connect();
  const { run, workflow } = await findRun(client, runId, opts.workflow as string | undefined);
  if (ctx.out.json) ctx.out.jsonLine(run);
  else ctx.out.stdout.write(runDetails(run, workflow, ctx.out.style));
}

async function rerun(ctx: Context, runId: string, opts: Record<string, unknown>): Promise<void> {
  requireRunId(runId);
  const { client } = await ctx.connect();
  const { run: earlier, workflow } = await findRun(client, runId, opts.workflow as string | undefined);
  const from = opts.from as string | undefined;
  let run: Run;
  try {
    run = await client.rerunWorkflowRun(
      workflow.id,
      earlier.id,
      from === undefined ? {} : { from_step: from },
    );
  } catch (err) {
    if (err instanceof ApiError && err.status === 400 && from !== undefined) {
      // A re-run runs the workflow's current steps: those are what --from can name.
      const names = workflow.steps.map((s) => s.name).join(", ");
      throw new CliError(`${apiErrorLine(err)}: the steps of ${workflow.name} are ${names || "none"}`);
    }
    throw err;
  }
  const { out } = ctx;
  if (out.json) out.jsonLine(run);
  else {
    out.say(
      out.style.dim(`re-ran ${earlier.id}${from !== undefined ? ` from step ${from}` : ""} as ${run.id}`),
    );
    out.stdout.write(runDetails(run, workflow, out.style));
  }
  if (!ENDED_RUN_STATUSES.includes(run.status))
    out.info(`${run.id} is still ${run.status}: headwater runs show ${run.id} shows it later`);
  if (run.status === "error") {
    const e = run.error;
    throw new CliError(
      `the re-run failed${e ? `: ${e.step ? `step ${e.step}: ` : ""}${e.code}: ${e.message}` : ""}`,
    );
  }
}

async function cancel(ctx: Context, runId: string, opts: Record<string, unknown>): Promise<void> {
  requireRunId(runId);
  const { client } = await ctx.connect();
  const { run: found, workflow } = await findRun(client, runId, opts.workflow as string | undefined);
  let run: Run;
  try {
    run = await client.cancelWorkflowRun(workflow.id, found.id);
  } catch (err) {
    // The server's word, not the status read a moment ago: the run may have started since.
    if (err instanceof ApiError && err.status === 409)
      throw new CliError(`cannot cancel: ${apiErrorLine(err)}`);
    // Gone between the read and the cancel (deleted with its workflow, or past the retention).
    if (err instanceof ApiError && err.status === 404)
      throw new CliError(`no run ${runId} in workflow ${workflow.name} (${workflow.id}) any more`);
    throw err;
  }
  const { out } = ctx;
  if (out.json) return out.jsonLine(run);
  out.say(out.style.dim(`cancelled ${run.id} (it was ${found.status})`));
  out.stdout.write(runDetails(run, workflow, out.style));
}

/** A run id's form is checked before anything is asked: a typo is a usage error. */
function requireRunId(runId: string): void {
  if (!isId("run", runId)) throw new UsageError(`${runId} is not a run id (they look like r_...)`);
}

/** How many workflows are asked at once for a run id. */
const LOOKUP_CONCURRENCY = 4;

/** A run by id, under the workflow given, or else under whichever of the user's workflows has it. */
async function findRun(
  client: Client,
  runId: string,
  workflowRef: string | undefined,
): Promise<{ run: Run; workflow: Workflow }> {
  if (workflowRef !== undefined) {
    const workflow = await resolveWorkflow(client, workflowRef);
    const run = await runOf(client, workflow.id, runId);
    if (!run) throw new CliError(`no run ${runId} in workflow ${workflow.name} (${workflow.id})`);
    return { run, workflow };
  }
  const workflows = await allWorkflows(client);
  let next = 0;
  let found: { run: Run; workflow: Workflow } | undefined;
  const worker = async () => {
    while (!found && next < workflows.length) {
      const workflow = workflows[next++]!;
      const run = await runOf(client, workflow.id, runId);
      if (run) found = { run, workflow };
    }
  };
  await Promise.all(Array.from({ length: Math.min(LOOKUP_CONCURRENCY, workflows.length) }, worker));
  if (!found)
    throw new CliError(
      `no run ${runId} in any of your ${workflows.length} workflows (runs past the retention are gone)`,
    );
  return found;
}

/** The run, or undefined when the workflow has no run of that id (the API's 404). */
async function runOf(client: Client, workflowId: string, runId: string): Promise<Run | undefined> {
  try {
    return await client.getWorkflowRun(workflowId, runId);
  } catch (err) {
    if (err instanceof ApiError && err.status === 404) return undefined;
    throw err;
  }
}
