/**
 * `deploy` and `dev` share this: save the component (which checks that it loads, before any
 * source exists, so a bad file leaves nothing behind), then create the source or update the one
 * with that name (`PUT`, which keeps its id, endpoint URL and events). Props are checked against
 * the saved component's props before any source is touched; a refused prop leaves that saved
 * component behind, as there is no API to delete a component.
 */
import { ApiError, type Client } from "../../shared/client/index.js";
import { slugify } from "../../shared/ids.js";
import type { Component, PropDescriptor, Source } from "../../shared/resources/index.js";
import { CliError, UsageError } from "../errors.js";
import { sourcesNamed } from "../sources.js";
import { readComponentFile } from "./component-file.js";
import { buildProps, missingProp, type AccountFlag } from "./props.js";

export type ComponentTarget = { file: string } | { url: string };

export interface DeployRequest {
  target: ComponentTarget;
  /** The source's name; default: `defaultName`, else the component's name as the server would slug it. */
  name?: string | undefined;
  defaultName?: (component: Component) => string;
  propsFromFile?: Record<string, unknown>;
  propFlags?: Array<[string, string]>;
  /** `--account prop=apn_...`, resolved (resolveAccounts). */
  accounts?: AccountFlag[];
  /** Update this source (dev's re-deploys) instead of looking one up by name. */
  sourceId?: string;
}

export interface DeployResult {
  source: Source;
  component: Component;
  created: boolean;
  endpointUrl: string | undefined;
  /** Local files the component was built from (dev watches them). */
  inputs: string[];
}

/** A component target from the command line: an http(s) URL, else a file path. */
export function componentTarget(arg: string): ComponentTarget {
  return /^https?:\/\//i.test(arg) ? { url: arg } : { file: arg };
}

export async function saveComponent(client: Client, target: ComponentTarget): Promise<{ component: Component; inputs: string[] }> {
  if ("url" in target) return { component: await client.createComponent({ component_url: target.url }), inputs: [] };
  const file = await readComponentFile(target.file);
  return { component: await client.createComponent({ component_code: file.code }), inputs: file.inputs };
}

export async function deploySource(client: Client, req: DeployRequest): Promise<DeployResult> {
  const { component, inputs } = await saveComponent(client, req.target);
  const props = component.configurable_props;
  const given = buildProps(props, req.propsFromFile ?? {}, req.propFlags ?? [], req.accounts ?? []);
  const name = req.name ?? (req.defaultName ?? ((c) => slugify(c.name)))(component);

  let existing: Source | undefined;
  if (req.sourceId) existing = await client.getSource(req.sourceId);
  else {
    const named = await sourcesNamed(client, name);
    if (named.length > 1) {
      throw new CliError(`${name} names ${named.length} sources (${named.map((s) => s.id).join(", ")}): give --name a unique name`);
    }
    existing = named[0];
  }

  let source: Source;
  if (existing) {
    const changed = Object.keys(given).length > 0;
    source = await client.updateSource(existing.id, {
      component_id: component.id,
      ...(req.sourceId ? {} : { name }),
      active: existing.active,
      // Props not given keep their values (the server keeps them when none are sent).
      ...(changed ? { configured_props: { ...keptProps(existing, props), ...given } } : {}),
    });
  } else {
    const missing = missingProp(props, given);
    if (missing) {
      throw new UsageError(`missing prop ${missing.name} (${missing.type}${missing.label ? `, "${missing.label}"` : ""}): pass --prop ${missing.name}=VALUE`);
    }
    source = await client.createSource({ component_id: component.id, name, configured_props: given });
  }
  return { source, component, created: !existing, endpointUrl: endpointOf(source, props), inputs };
}

/**
 * The accounts `--account` names, read before the component is saved: an id that is not one of
 * the user's accounts is said as such and leaves nothing behind.
 */
export async function resolveAccounts(client: Client, flags: Array<[string, string]>): Promise<AccountFlag[]> {
  return Promise.all(
    flags.map(async ([prop, id]) => {
      try {
        return { prop, account: await client.getAccount(id) };
      } catch (err) {
        if (err instanceof ApiError && err.status === 404) throw new CliError(`--account ${prop}: you have no account ${id} (headwater accounts list shows yours)`);
        throw err;
      }
    }),
  );
}

/** The source's HTTP endpoint, when its component has an HTTP prop. */
export function endpointOf(source: Source, props: PropDescriptor[]): string | undefined {
  for (const p of props) {
    if (p.type !== "$.interface.http") continue;
    const v = source.configured_props[p.name] as { endpoint_url?: unknown } | undefined;
    if (typeof v?.endpoint_url === "string") return v.endpoint_url;
  }
  for (const v of Object.values(source.configured_props)) {
    const url = (v as { endpoint_url?: unknown } | null)?.endpoint_url;
    if (typeof url === "string") return url;
  }
  return undefined;
}

function keptProps(source: Source, props: PropDescriptor[]): Record<string, unknown> {
  const names = new Set(props.map((p) => p.name));
  return Object.fromEntries(Object.entries(source.configured_props).filter(([k]) => names.has(k)));
}
