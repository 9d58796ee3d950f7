/**
 * `workflows run <workflow> [--event FILE|-] [--follow]` (decisions.md "Workflow triggers": Run
 * now): a production run of the deployed workflow, trigger MANUAL, through its queue (retries,
 * concurrency and a throttle apply). Prints the run's id and status; `--follow` waits for its end
 * and prints each step's result, exit 1 when it failed. The event is a JSON file (`-`: stdin),
 * `{}` without one. An inactive workflow is refused by the server (turn it on first).
 */
import type { Command } from "commander";
import { ENDED_RUN_STATUSES, type Run } from "../../shared/resources/index.js";
import type { Context } from "../context.js";
import { CliError } from "../errors.js";
import type { Act } from "../options.js";
import { runDetails } from "../output/run-view.js";
import { resolveWorkflow } from "../sources.js";
import { eventFrom } from "./workflow-test.js";

const POLL_MS = 500;

export function registerWorkflowRun(workflows: Command, act: Act) {
  workflows
    .command("run")
    .description(
      "run the deployed workflow now (a production run, trigger MANUAL) and print its id and status",
    )
    .argument("<workflow>", "workflow id (p_...) or name")
    .option("--event <file>", "the trigger event, a JSON file (- reads stdin); default {}")
    .option("-f, --follow", "wait for the run to end and print each step's result (exit 1 if it fails)")
    .action(act((ctx, [ref], opts) => run(ctx, ref!, opts)));
}

async function run(ctx: Context, ref: string, opts: Record<string, unknown>): Promise<void> {
  const file = opts.event as string | undefined;
  const event = file !== undefined ? eventFrom(file) : undefined;
  const { client } = await ctx.connect();
  const workflow = await resolveWorkflow(client, ref);
  let r: Run = await client.runWorkflow(workflow.id, event !== undefined ? { event } : {});
  const { out } = ctx;
  if (!opts.follow) {
    if (out.json) out.jsonLine(r);
    else out.stdout.write(`${r.id} ${r.status}\n`);
    return;
  }
  while (!ENDED_RUN_STATUSES.includes(r.status)) {
    await new Promise((res) => setTimeout(res, POLL_MS));
    if (ctx.signal.aborted) break;
    r = await client.getWorkflowRun(workflow.id, r.id);
  }
  if (out.json) out.jsonLine(r);
  else out.stdout.write(runDetails(r, workflow, out.style));
  if (r.status === "error") {
    const e = r.error;
    throw new CliError(
      `the run failed${e ? `: ${e.step ? `step ${e.step}: ` : ""}${e.code}: ${e.message}` : ""}`,
    );
  }
}
