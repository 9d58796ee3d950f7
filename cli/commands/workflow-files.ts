/**
 * A workflow as files (decisions.md "Building workflows", "Workflow files"; the format is
 * cli/workflows/files.ts's): `workflows pull <workflow> [dir]` writes its folder,
 * `workflows push [dir]` deploys the folder. A push creates the workflow when workflow.yaml has
 * no id; else it prints what changes, step by step, then updates the workflow with
 * `base_version` = the version the folder was pulled at, so that a change made meanwhile is
 * refused rather than overwritten (`--force` overwrites it). An unchanged folder makes no
 * version. The version a push made is written back into workflow.yaml.
 */
import path from "node:path";
import type { Command } from "commander";
import { ApiError } from "../../shared/client/index.js";
import type { UpdateWorkflowBody, Workflow } from "../../shared/resources/index.js";
import type { Context } from "../context.js";
import { CliError } from "../errors.js";
import type { Act } from "../options.js";
import { resolveWorkflow } from "../sources.js";
import { compareWorkflows, CONTENT_FIELDS, nothingChanged, renderChanges, type WorkflowState } from "../workflows/changes.js";
import { readWorkflowFolder, recordVersion, writeWorkflowFolder, type LocalWorkflow } from "../workflows/files.js";

export function registerWorkflowFiles(workflows: Command, act: Act) {
  workflows
    .command("pull")
    .description("write a workflow as a folder: workflow.yaml and one .mjs file per code step")
    .argument("<workflow>", "workflow id (p_...) or name")
    .argument("[dir]", "the folder (default: the current one)", ".")
    .action(act((ctx, [ref, dir]) => pull(ctx, ref!, dir ?? ".")));
  workflows
    .command("push")
    .description("deploy a workflow folder: create the workflow, or update it after showing what changes")
    .argument("[dir]", "the folder (default: the current one)", ".")
    .option("-m, --message <text>", "what the change does, kept with the new version")
    .option("--force", "update even when the workflow changed since the folder was pulled (overwrites that change)")
    .action(act((ctx, [dir], opts) => push(ctx, dir ?? ".", opts.message as string | undefined, opts.force === true)));
}

async function pull(ctx: Context, ref: string, dir: string): Promise<void> {
  const { client } = await ctx.connect();
  const w = await resolveWorkflow(client, ref);
  const written = writeWorkflowFolder(dir, w);
  const { out } = ctx;
  if (out.json) return out.jsonLine({ id: w.id, version: w.version ?? 1, dir: path.resolve(dir), files: written });
  out.say(`pulled ${w.name} (${w.id}) version ${w.version ?? 1} into ${dir}: ${written.join(", ")}`);
}

/** The steps as create and update take them. */
const stepInputs = (local: LocalWorkflow) =>
  local.steps.map((s) => (s.action !== undefined ? { name: s.name, action: s.action, props: s.props ?? {} } : { name: s.name, code: s.code }));

/** The file's settings: only those it names (the others keep the workflow's). */
function settingsOf(local: LocalWorkflow): Omit<UpdateWorkflowBody, "steps" | "base_version" | "message"> {
  const { id: _id, version: _version, steps: _steps, ...settings } = local.file;
  return settings;
}

/** What the workflow would be after the push: its content, with what the folder names in place. */
function stateAfter(current: Workflow, local: LocalWorkflow): WorkflowState {
  const kept = Object.fromEntries(CONTENT_FIELDS.map((f) => [f, current[f]]));
  const settings = settingsOf(local);
  const retry = settings.retry && current.retry ? { ...current.retry, ...settings.retry } : settings.retry;
  return { ...kept, ...settings, ...(retry ? { retry } : {}), name: local.file.name, steps: local.steps } as WorkflowState;
}

async function push(ctx: Context, dir: string, message: string | undefined, force: boolean): Promise<void> {
  // The folder is read and checked whole before anything is sent.
  const local = readWorkflowFolder(dir);
  const { client } = await ctx.connect();
  const { out } = ctx;
  const { id, version: base } = local.file;

  if (id === undefined) {
    const created = await client.createWorkflow({ ...settingsOf(local), name: local.file.name, steps: stepInputs(local) });
    recordVersion(dir, created.id, created.version ?? 1);
    if (out.json) return out.jsonLine({ id: created.id, version: created.version ?? 1, result: "created" });
    out.say(`created ${created.name} (${created.id}) at version ${created.version ?? 1}; workflow.yaml now names it`);
    return;
  }
  if (base === undefined && !force)
    throw new CliError(`${path.join(dir, "workflow.yaml")} has an id but no version: pull it again, or push --force`);

  const current = await resolveWorkflow(client, id);
  const changes = compareWorkflows(current as WorkflowState, stateAfter(current, local));
  const now = current.version ?? 1;
  if (nothingChanged(changes)) {
    // The folder holds the workflow as it is: it is now based on its current version.
    if (base !== now) recordVersion(dir, current.id, now);
    if (out.json) return out.jsonLine({ id: current.id, version: now, result: "unchanged", ...changes });
    out.say(`no changes: ${current.name} (${current.id}) stays at version ${now}`);
    return;
  }
  if (!out.json)
    out.stdout.write(
      renderChanges(changes, { from: `${current.name} version ${now} (deployed)`, to: `${dir} (local)` }, out.style),
    );

  let updated: Workflow;
  try {
    updated = await client.updateWorkflow(current.id, {
      ...settingsOf(local),
      name: local.file.name,
      steps: stepInputs(local),
      ...(message !== undefined ? { message } : {}),
      ...(force || base === undefined ? {} : { base_version: base }),
      origin: "push",
    });
  } catch (err) {
    if (err instanceof ApiError && err.code === "version_conflict")
      throw new CliError(
        `not pushed: ${path.join(dir, "workflow.yaml")} was pulled at version ${base}, and ${current.name} is at version ${now} now: pull it into another folder to see what changed, or push --force to overwrite it`,
      );
    throw err;
  }
  recordVersion(dir, updated.id, updated.version ?? now);
  if (out.json) return out.jsonLine({ id: updated.id, version: updated.version, result: "deployed", ...changes });
  out.say(`deployed ${updated.name} (${updated.id}) as version ${updated.version}`);
}
