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
import { ApiError, type Client } from "../../shared/client/index.js";
import { WORKFLOW_FILE_SCHEMA_PATH, type UpdateWorkflowBody, type Workflow } from "../../shared/resources/index.js";
import type { Context } from "../context.js";
import { CliError } from "../errors.js";
import type { Act } from "../options.js";
import { resolveWorkflow } from "../sources.js";
import { compareWorkflows, CONTENT_FIELDS, nothingChanged, renderChanges, type WorkflowState } from "../workflows/changes.js";
import { readWorkflowFolder, recordVersion, WORKFLOW_FILE, writeWorkflowFolder, type LocalWorkflow } from "../workflows/files.js";
import { comparableTriggers, triggerFields, type TriggerFields } from "../workflows/triggers.js";

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
  // The schema's URL under the API's base (`…/v1/schemas/workflow-file.json`), as editors fetch it.
  const schemaUrl = client.baseUrl.replace(/\/v1$/, "") + WORKFLOW_FILE_SCHEMA_PATH;
  const written = writeWorkflowFolder(dir, w, schemaUrl);
  const { out } = ctx;
  if (out.json) return out.jsonLine({ id: w.id, version: w.version ?? 1, dir: path.resolve(dir), files: written });
  out.say(`pulled ${w.name} (${w.id}) version ${w.version ?? 1} into ${dir}: ${written.join(", ")}`);
}

/** The steps as create and update take them (a code step's configured props too, when it has them). */
const stepInputs = (local: LocalWorkflow) =>
  local.steps.map((s) =>
    s.action !== undefined
      ? { name: s.name, action: s.action, props: s.props ?? {} }
      : { name: s.name, code: s.code, ...(s.configured_props ? { configured_props: s.configured_props } : {}) },
  );

/** The file's settings: only those it names (the others keep the workflow's). Triggers: triggers.ts. */
function settingsOf(local: LocalWorkflow): Omit<UpdateWorkflowBody, "steps" | "base_version" | "message"> {
  const { id: _id, version: _version, steps: _steps, schedules: _s, http_auth: _a, ...settings } = local.file;
  return settings;
}

/** The workflow as compared with a folder: its content, its triggers as a file holds them. */
const comparable = (w: Workflow): WorkflowState => ({ ...w, ...comparableTriggers(w) }) as WorkflowState;

/** What the workflow would be after the push: its content, with what the folder names in place. */
function stateAfter(current: Workflow, local: LocalWorkflow): WorkflowState {
  const now = comparable(current);
  const kept = Object.fromEntries(CONTENT_FIELDS.map((f) => [f, now[f]]));
  const settings = settingsOf(local);
  const retry = settings.retry && current.retry ? { ...current.retry, ...settings.retry } : settings.retry;
  const triggers = comparableTriggers(local.file);
  return { ...kept, ...settings, ...triggers, ...(retry ? { retry } : {}), name: local.file.name, steps: local.steps } as WorkflowState;
}

/** A server that does not take a field the file has (an older one, without schedules or endpoint auth) says which. */
function unknownField(err: unknown, triggers: TriggerFields): CliError | undefined {
  if (!(err instanceof ApiError) || err.status !== 400) return undefined;
  const field = (["schedules", "http_auth"] as const).find(
    (f) => triggers[f] !== undefined && err.details?.some((d) => d.path === `body.${f}` && /not a field/.test(d.message)),
  );
  return field && new CliError(`this server does not take \`${field}\` (it is older than them): remove ${field} from ${WORKFLOW_FILE} to push to it`);
}

/** A folder without an id: the workflow is created from it, and workflow.yaml then names it. */
async function create(ctx: Context, client: Client, local: LocalWorkflow, dir: string): Promise<void> {
  const triggers = triggerFields(local.file, undefined, ctx.env, path.join(dir, WORKFLOW_FILE));
  let created: Workflow;
  try {
    created = await client.createWorkflow({ ...settingsOf(local), ...triggers, name: local.file.name, steps: stepInputs(local) });
  } catch (err) {
    throw unknownField(err, triggers) ?? err;
  }
  recordVersion(dir, created.id, created.version ?? 1);
  const { out } = ctx;
  if (out.json) return out.jsonLine({ id: created.id, version: created.version ?? 1, result: "created" });
  out.say(`created ${created.name} (${created.id}) at version ${created.version ?? 1}; workflow.yaml now names it`);
}

async function push(ctx: Context, dir: string, message: string | undefined, force: boolean): Promise<void> {
  // The folder is read and checked whole before anything is sent.
  const local = readWorkflowFolder(dir);
  const { client } = await ctx.connect();
  const { out } = ctx;
  const { id, version: base } = local.file;

  const yamlPath = path.join(dir, WORKFLOW_FILE);
  if (id === undefined) return create(ctx, client, local, dir);
  if (base === undefined && !force)
    throw new CliError(`${yamlPath} has an id but no version: pull it again, or push --force`);

  const current = await resolveWorkflow(client, id);
  // Checked before anything is printed: a bearer without a token stops here.
  const triggers = triggerFields(local.file, current, ctx.env, yamlPath);
  const changes = compareWorkflows(comparable(current), stateAfter(current, local));
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
      ...triggers,
      name: local.file.name,
      steps: stepInputs(local),
      ...(message !== undefined ? { message } : {}),
      ...(force || base === undefined ? {} : { base_version: base }),
      origin: "push",
    });
  } catch (err) {
    if (err instanceof ApiError && err.code === "version_conflict")
      throw new CliError(
        `not pushed: ${yamlPath} was pulled at version ${base}, and ${current.name} is at version ${now} now: pull it into another folder to see what changed, or push --force to overwrite it`,
      );
    throw unknownField(err, triggers) ?? err;
  }
  recordVersion(dir, updated.id, updated.version ?? now);
  if (out.json) return out.jsonLine({ id: updated.id, version: updated.version, result: "deployed", ...changes });
  out.say(`deployed ${updated.name} (${updated.id}) as version ${updated.version}`);
}
