/**
 * `<source>` arguments: an id (`dc_...`) or a name. A name matches a source's name or its slug;
 * nothing or several matches is an error that lists what to use instead. `<workflow>` arguments
 * likewise: an id (`p_...`) or a workflow's name.
 */
import { pages, type Client } from "../shared/client/index.js";
import { ApiError } from "../shared/client/index.js";
import type { Source, Workflow } from "../shared/resources/index.js";
import { CliError } from "./errors.js";

const SOURCE_ID = /^dc_[A-Za-z0-9]+$/;
const WORKFLOW_ID = /^p_[A-Za-z0-9]+$/;

export async function allSources(client: Client): Promise<Source[]> {
  const out: Source[] = [];
  for await (const s of pages((q) => client.listMySources(q))) out.push(s);
  return out;
}

export async function allWorkflows(client: Client): Promise<Workflow[]> {
  const out: Workflow[] = [];
  for await (const w of pages((q) => client.listMyWorkflows(q))) out.push(w);
  return out;
}

/** Sources whose name or slug is exactly `name`. */
export async function sourcesNamed(client: Client, name: string): Promise<Source[]> {
  return (await allSources(client)).filter((s) => s.name === name || s.name_slug === name);
}

export async function resolveSource(client: Client, ref: string): Promise<Source> {
  if (SOURCE_ID.test(ref)) {
    try {
      return await client.getSource(ref);
    } catch (err) {
      if (err instanceof ApiError && err.status === 404) throw new CliError(`no source with id ${ref}`);
      throw err;
    }
  }
  return pickOne(ref, await sourcesNamed(client, ref), "source");
}

/** A workflow by id (`p_...`) or by its name. */
export async function resolveWorkflow(client: Client, ref: string): Promise<Workflow> {
  if (WORKFLOW_ID.test(ref)) {
    try {
      return await client.getWorkflow(ref);
    } catch (err) {
      if (err instanceof ApiError && err.status === 404) throw new CliError(`no workflow with id ${ref}`);
      throw err;
    }
  }
  if (SOURCE_ID.test(ref)) throw new CliError(`${ref} is a source: runs are a workflow's (give its p_... id or name)`);
  return pickOne(ref, (await allWorkflows(client)).filter((w) => w.name === ref), "workflow");
}

/**
 * An emitter or listener: a source or workflow id, else the name of a source or a workflow.
 * `wildcard` allows `dc_*` / `p_*` (every source / workflow), which the API takes as emitters.
 */
export async function resolveParticipant(client: Client, ref: string, wildcard = false): Promise<string> {
  if (SOURCE_ID.test(ref) || WORKFLOW_ID.test(ref)) return ref;
  if (wildcard && (ref === "dc_*" || ref === "p_*")) return ref;
  const [sources, workflows] = await Promise.all([allSources(client), allWorkflows(client)]);
  const matches: Array<{ id: string; name: string }> = [
    ...sources.filter((s) => s.name === ref || s.name_slug === ref),
    ...workflows.filter((w) => w.name === ref),
  ];
  return pickOne(ref, matches, "source or workflow").id;
}

function pickOne<T extends { id: string }>(ref: string, matches: T[], what: string): T {
  if (matches.length === 1) return matches[0]!;
  if (matches.length === 0) throw new CliError(`no ${what} named ${ref}`);
  const ids = matches.slice(0, 5).map((m) => m.id).join(", ");
  throw new CliError(`${ref} names ${matches.length} ${what}s (${ids}${matches.length > 5 ? ", ..." : ""}): use an id`);
}
