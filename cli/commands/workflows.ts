/**
 * `workflows show <workflow>` and `workflows set <workflow>`: a workflow and its execution
 * controls (decisions.md "Execution controls"): how a failed run is retried, how many runs may
 * run at once, and how many may start in a period. `list workflows` lists them; `runs` shows
 * what they did.
 *
 * `set` sends only the controls named (the server keeps the others: a partial `retry` keeps the
 * retry fields not named), then prints the workflow's controls as the server answered them.
 * Values are checked for their form here (a whole number; `N/SECONDS`) and for their range by
 * the server, whose 400 names each field refused: the one rule for every client.
 *
 * `--retries N` counts retries, as `listen --retries` does: a run is tried N + 1 times in all
 * (`retry.max_attempts` N + 1), and `--retries 0` switches retrying off.
 */
import { InvalidArgumentError, type Command } from "commander";
import { ApiError } from "../../shared/client/index.js";
import { CONTROL_LIMITS, type UpdateWorkflowBody, type Workflow } from "../../shared/resources/index.js";
import type { Context } from "../context.js";
import { apiErrorLine, CliError, UsageError } from "../errors.js";
import { nonNegativeInt, type Act } from "../options.js";
import { renderFields } from "../output/table.js";
import { relativeTime } from "../output/time.js";
import { resolveWorkflow } from "../sources.js";
import { registerWorkflowFiles } from "./workflow-files.js";
import { registerWorkflowHistory } from "./workflow-history.js";
import { registerWorkflowTest } from "./workflow-test.js";
import { registerWorkflowRun } from "./workflow-run.js";

const L = CONTROL_LIMITS;

export function registerWorkflows(program: Command, act: Act) {
  const workflows = program
    .command("workflows")
    .description(
      "a workflow: show, set its execution controls (retries, concurrency, throttle), its versions, diff, restore; pull and push it as files, test the files; run it now",
    );
  workflows
    .command("show")
    .description("a workflow: its endpoint, steps and execution controls")
    .argument("<workflow>", "workflow id (p_...) or name")
    .action(act((ctx, [ref]) => show(ctx, ref!)));
  workflows
    .command("set")
    .description("change a workflow's execution controls (only the options given change), then show them")
    .argument("<workflow>", "workflow id (p_...) or name")
    .option(
      "--retries <n>",
      `retry a failed run up to N times, from the step that failed (N + 1 attempts in all; 0: no retry; at most ${L.maxAttempts.max - 1})`,
      nonNegativeInt("--retries"),
    )
    .option(
      "--retry-delay <seconds>",
      `wait before the first retry, doubled for each next one (${L.initialDelaySeconds.min}..${L.initialDelaySeconds.max})`,
      nonNegativeInt("--retry-delay"),
    )
    .option(
      "--retry-max-delay <seconds>",
      `the longest wait between two attempts (${L.maxDelaySeconds.min}..${L.maxDelaySeconds.max})`,
      nonNegativeInt("--retry-max-delay"),
    )
    .option(
      "--concurrency <n>",
      `how many runs may run at once (${L.concurrency.min}..${L.concurrency.max}; 1 keeps them in order)`,
      nonNegativeInt("--concurrency"),
    )
    .option(
      "--throttle <n/seconds>",
      `at most N runs start in any SECONDS (N ${L.throttleLimit.min}..${L.throttleLimit.max}, SECONDS ${L.throttlePeriodSeconds.min}..${L.throttlePeriodSeconds.max}); the others wait, none is dropped`,
      throttle,
    )
    .option("--no-throttle", "remove the throttle")
    .action(act((ctx, [ref], opts) => set(ctx, ref!, opts)));
  registerWorkflowHistory(workflows, act);
  registerWorkflowFiles(workflows, act);
  registerWorkflowTest(workflows, act);
  registerWorkflowRun(workflows, act);
}

/** `--throttle 10/60`: N runs per SECONDS. */
function throttle(value: string): { limit: number; period_seconds: number } {
  const m = /^(\d+)\/(\d+)$/.exec(value.trim());
  if (!m) throw new InvalidArgumentError("must be N/SECONDS, e.g. 10/60 for at most 10 runs a minute.");
  return { limit: Number(m[1]), period_seconds: Number(m[2]) };
}

/** The update body of the options given; a usage error when none is. */
function controlsBody(opts: Record<string, unknown>): UpdateWorkflowBody {
  const body: UpdateWorkflowBody = {};
  const retry: NonNullable<UpdateWorkflowBody["retry"]> = {};
  if (typeof opts.retries === "number") retry.max_attempts = opts.retries + 1;
  if (typeof opts.retryDelay === "number") retry.initial_delay_seconds = opts.retryDelay;
  if (typeof opts.retryMaxDelay === "number") retry.max_delay_seconds = opts.retryMaxDelay;
  if (Object.keys(retry).length > 0) body.retry = retry;
  if (typeof opts.concurrency === "number") body.concurrency = opts.concurrency;
  // commander: an object for --throttle N/S, false for --no-throttle, undefined for neither.
  if (opts.throttle === false) body.throttle = null;
  else if (opts.throttle !== undefined)
    body.throttle = opts.throttle as NonNullable<UpdateWorkflowBody["throttle"]>;
  if (Object.keys(body).length === 0)
    throw new UsageError(
      "nothing to change: give --retries, --retry-delay, --retry-max-delay, --concurrency, --throttle or --no-throttle",
    );
  return body;
}

/** Which flag sets each field the server may refuse. */
const FLAG_OF: Record<string, string> = {
  "retry.max_attempts": "--retries, which is the attempts less one",
  "retry.initial_delay_seconds": "--retry-delay",
  "retry.max_delay_seconds": "--retry-max-delay",
  concurrency: "--concurrency",
  throttle: "--throttle",
  "throttle.limit": "--throttle's N",
  "throttle.period_seconds": "--throttle's SECONDS",
};

/** A 400 with every field the server refused, each with the flag that set it. */
function refusal(err: ApiError): CliError {
  const details = err.details ?? [];
  if (details.length === 0) return new CliError(apiErrorLine(err));
  const fields = details.map((d) => {
    const path = d.path
      .replace(/^\/+/, "")
      .replace(/^body[./]/, "")
      .replace(/\//g, ".");
    const flag = FLAG_OF[path];
    return `${path}${flag ? ` (${flag})` : ""}: ${d.message}`;
  });
  // (The server's message repeats its first detail: the details alone say it all.)
  return new CliError(
    `the server refused the change: ${fields.join("; ")} (${err.code}, HTTP ${err.status})`,
  );
}

async function set(ctx: Context, ref: string, opts: Record<string, unknown>): Promise<void> {
  const body = controlsBody(opts);
  const { client } = await ctx.connect();
  const workflow = await resolveWorkflow(client, ref);
  let updated: Workflow;
  try {
    updated = await client.updateWorkflow(workflow.id, body);
  } catch (err) {
    if (err instanceof ApiError && err.status === 400) throw refusal(err);
    throw err;
  }
  const { out } = ctx;
  if (out.json) return out.jsonLine(updated);
  out.say(out.style.dim(`updated ${updated.name} (${updated.id})`));
  out.stdout.write(renderFields(controlFields(updated), out.style));
}

async function show(ctx: Context, ref: string): Promise<void> {
  const { client } = await ctx.connect();
  const w = await resolveWorkflow(client, ref);
  const { out } = ctx;
  if (out.json) return out.jsonLine(w);
  const steps = w.steps.map((s) => (s.action ? `${s.name} (action ${s.action})` : s.name)).join(", ");
  const fields: Array<[string, string]> = [
    ["workflow", `${w.name} (${w.id})`],
    ["active", w.active ? out.style.green("yes") : out.style.dim("no")],
    ["endpoint", w.endpoint_url],
    ["answers", w.http_response === "workflow" ? "with the run's $.respond" : "at once (200)"],
    ["steps", steps || "-"],
    ...controlFields(w),
    ["updated", relativeTime(w.updated_at * 1000)],
  ];
  out.stdout.write(renderFields(fields, out.style));
}

/** `90 s`, `3600 s (1 h)`: seconds as the flags take them, with a longer unit where it reads better. */
function secondsText(s: number): string {
  const unit = s % 3600 === 0 ? `${s / 3600} h` : s % 60 === 0 ? `${s / 60} min` : "";
  return s >= 60 && unit ? `${s} s (${unit})` : `${s} s`;
}

/** The execution controls as lines ("-" where an older server does not say). */
function controlFields(w: Workflow): Array<[string, string]> {
  const r = w.retry;
  const retries = r ? r.max_attempts - 1 : undefined;
  return [
    [
      "retries",
      retries === undefined
        ? "-"
        : retries === 0
          ? "none (a failed run is not tried again)"
          : `up to ${retries} (${r!.max_attempts} attempts in all)`,
    ],
    [
      "retry delay",
      r
        ? `${secondsText(r.initial_delay_seconds)}, doubled each retry, at most ${secondsText(r.max_delay_seconds)}`
        : "-",
    ],
    [
      "concurrency",
      w.concurrency === undefined
        ? "-"
        : w.concurrency === 1
          ? "1 run at a time, in order"
          : `${w.concurrency} runs at once`,
    ],
    [
      "throttle",
      w.throttle === undefined
        ? "-"
        : w.throttle === null
          ? "none"
          : `at most ${w.throttle.limit} run${w.throttle.limit === 1 ? "" : "s"} start per ${secondsText(w.throttle.period_seconds)}`,
    ],
  ];
}
