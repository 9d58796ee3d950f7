/**
 * A workflow's versions from the command line (decisions.md "Building workflows"):
 * `workflows versions <workflow>` lists them, `workflows diff <workflow> [A] [B]` shows what
 * changed between two of them (default: the previous and the current one), and
 * `workflows restore <workflow> <n>` makes version n's content the current one, as a new
 * version (nothing is lost).
 */
import { InvalidArgumentError, type Command } from "commander";
import { ApiError, pages } from "../../shared/client/index.js";
import type { Workflow, WorkflowVersionInfo } from "../../shared/resources/index.js";
import type { Context } from "../context.js";
import { CliError } from "../errors.js";
import { positiveInt, type Act } from "../options.js";
import { relativeTime } from "../output/time.js";
import { resolveWorkflow } from "../sources.js";
import { compareWorkflows, renderChanges, type WorkflowState } from "../workflows/changes.js";

/** A version's number on the command line (checked here, kept a string: commands get their arguments as strings). */
function versionNumber(value: string): string {
  if (!/^[1-9]\d{0,9}$/.test(value)) throw new InvalidArgumentError("must be a version number (1, 2, ...).");
  return value;
}

const numberOr = (value: string | undefined) => (value === undefined ? undefined : Number(value));

export function registerWorkflowHistory(workflows: Command, act: Act) {
  workflows
    .command("versions")
    .description("a workflow's versions, newest first: when, how each was made, its message")
    .argument("<workflow>", "workflow id (p_...) or name")
    .option("--limit <n>", "at most this many rows (default: all)", positiveInt("--limit"))
    .action(act((ctx, [ref], opts) => versions(ctx, ref!, opts.limit as number | undefined)));
  workflows
    .command("diff")
    .description("what changed between two versions, step by step (default: the previous and the current one)")
    .argument("<workflow>", "workflow id (p_...) or name")
    .argument("[A]", "the older version (default: the one before B)", versionNumber)
    .argument("[B]", "the newer version (default: the current one)", versionNumber)
    .action(act((ctx, [ref, a, b]) => diff(ctx, ref!, numberOr(a), numberOr(b))));
  workflows
    .command("restore")
    .description("make version N's content the current one, as a new version (history is kept)")
    .argument("<workflow>", "workflow id (p_...) or name")
    .argument("<n>", "the version to bring back", versionNumber)
    .option("-m, --message <text>", "what the restore is for, kept with the new version")
    .action(act((ctx, [ref, n], opts) => restore(ctx, ref!, Number(n), opts.message as string | undefined)));
}

/** A 404 on a version: the version does not exist (the workflow was found just before). */
async function versionOrFail<T>(w: Workflow, n: number, fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    if (err instanceof ApiError && err.status === 404)
      throw new CliError(`${w.name} (${w.id}) has no version ${n}: it is at version ${w.version ?? 1}`);
    throw err;
  }
}

const originText = (v: WorkflowVersionInfo) =>
  v.origin === "restore" && v.restored_from !== undefined ? `restore of ${v.restored_from}` : v.origin;

async function versions(ctx: Context, ref: string, limit: number | undefined): Promise<void> {
  const { client } = await ctx.connect();
  const w = await resolveWorkflow(client, ref);
  const rows: WorkflowVersionInfo[] = [];
  for await (const v of pages((q) => client.listWorkflowVersions(w.id, q), Math.min(100, limit ?? 100))) {
    if (limit !== undefined && rows.length >= limit) break;
    rows.push(v);
  }
  ctx.out.rows(rows, [
    { header: "VERSION", cell: (v) => (v.version === w.version ? `${v.version} (current)` : String(v.version)) },
    { header: "CREATED", cell: (v) => relativeTime(v.created_at * 1000) },
    { header: "ORIGIN", cell: originText },
    { header: "MESSAGE", cell: (v) => v.message ?? "" },
  ]);
}

async function diff(ctx: Context, ref: string, a: number | undefined, b: number | undefined): Promise<void> {
  const { client } = await ctx.connect();
  const w = await resolveWorkflow(client, ref);
  const current = w.version ?? 1;
  const to = b ?? current;
  const from = a ?? to - 1;
  if (from < 1) throw new CliError(`${w.name} (${w.id}) has only version ${to}: there is nothing before it to compare with`);
  const [older, newer] = await Promise.all(
    [from, to].map((n) => versionOrFail(w, n, () => client.getWorkflowVersion(w.id, n))),
  );
  const changes = compareWorkflows(older!.workflow as WorkflowState, newer!.workflow as WorkflowState);
  const { out } = ctx;
  if (out.json) return out.jsonLine({ id: w.id, from, to, ...changes });
  const label = (n: number) => `${w.name} version ${n}${n === current ? " (current)" : ""}`;
  out.stdout.write(renderChanges(changes, { from: label(from), to: label(to) }, out.style));
}

async function restore(ctx: Context, ref: string, n: number, message: string | undefined): Promise<void> {
  const { client } = await ctx.connect();
  const w = await resolveWorkflow(client, ref);
  const base = w.version;
  let restored: Workflow;
  try {
    restored = await versionOrFail(w, n, () =>
      client.restoreWorkflowVersion(w.id, n, {
        ...(message !== undefined ? { message } : {}),
        // The version read just now: a change made in between is refused, not overwritten.
        ...(base !== undefined ? { base_version: base } : {}),
      }),
    );
  } catch (err) {
    if (err instanceof ApiError && err.code === "version_conflict")
      throw new CliError(`${w.name} changed while restoring (it was at version ${base}): ${err.message}`);
    throw err;
  }
  const { out } = ctx;
  if (out.json) return out.jsonLine(restored);
  if (restored.version === base) out.say(`${restored.name} (${restored.id}) already has version ${n}'s content: no new version (at ${base})`);
  else out.say(`restored ${restored.name} (${restored.id}): version ${restored.version} has version ${n}'s content`);
}
