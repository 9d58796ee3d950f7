/**
 * The local server's first launch: a few example sources made from the built-in registry
 * components, so a newcomer sees events flowing at once. Created once, and only into an
 * account that has no sources yet.
 */
import { ApiError, type Client } from "../../shared/client/index.js";

export interface ExampleSpec {
  /** Registry keys to try, first found wins (the built-in's key). */
  keys: string[];
  name: string;
  /** configured_props, given the component's prop names. */
  props: (propNames: Array<{ name: string; type: string }>) => Record<string, unknown>;
}

export const EXAMPLES: ExampleSpec[] = [
  {
    keys: ["schedule"],
    name: "Example: every 5 seconds",
    props: (props) => {
      const out: Record<string, unknown> = {};
      for (const p of props) if (p.type === "$.interface.timer") out[p.name] = { intervalSeconds: 5 };
      return out;
    },
  },
  {
    keys: ["http-new-requests"],
    name: "Example: HTTP requests",
    props: () => ({}),
  },
];

/**
 * Creates the examples the registry has. Returns how many were created; 0 when the account
 * already had sources (nothing to do) or the registry has none of them yet.
 */
export async function createExampleSources(client: Client, log?: (m: string) => void): Promise<{ created: number; skipped: boolean }> {
  const existing = await client.listMySources({ limit: 1 });
  if (existing.data.length > 0) return { created: 0, skipped: true };
  let created = 0;
  for (const spec of EXAMPLES) {
    const component = await findRegistryComponent(client, spec.keys);
    if (!component) {
      log?.(`example "${spec.name}": no registry component among ${spec.keys.join(", ")}`);
      continue;
    }
    await client.createSource({
      key: component.key,
      name: spec.name,
      configured_props: spec.props(component.configurable_props),
    });
    created += 1;
  }
  return { created, skipped: false };
}

async function findRegistryComponent(client: Client, keys: string[]) {
  for (const key of keys) {
    try {
      return await client.getRegistryComponent(key);
    } catch (err) {
      if (!(err instanceof ApiError && err.status === 404)) throw err;
    }
  }
  return undefined;
}
