/**
 * The components the server knows, searched by key and name (`GET /components/search`, matched
 * and ranked by search.ts): the registry's (published, built-in, the vendor's looked up before),
 * then the sources of the vendor packages already fetched; a one-word query naming an app also
 * fetches that app's package by its exact name and lists its sources.
 */
import type { ComponentMatch, ComponentSearch } from "../../shared/resources/index.js";
import { UnavailableError } from "../errors.js";
import type { PublishedSummary } from "../store/repos/components.js";
import type { Requester } from "../users/requester.js";
import { ComponentFetchError } from "./fetch.js";
import { APP_NAME, type NpmComponents, type PackageSource } from "./npm-registry.js";
import { byRank, matchKind } from "./search.js";

/** Where the known components are read from. */
export interface KnownComponents {
  published: () => Promise<PublishedSummary[]>;
  /** The vendor's packages (absent when the server looks nothing up on npm). */
  npm: NpmComponents | undefined;
}

export async function searchKnown(
deps: KnownComponents,
requester: Requester,
q: string,
limit: number,
opts: { fetchApp?: boolean } = {},
): Promise<ComponentSearch> {
  const query = q.trim();
  const found = new Map<string, ComponentMatch>();
  const add = (m: Omit<ComponentMatch, "match">) => {
    if (found.has(m.key)) return;
    const match = matchKind(query, m);
    if (match) found.set(m.key, { ...m, match });
  };
  for (const r of await deps.published()) {
    const meta = JSON.parse(r.meta) as { type?: string };
    const pkg = /^npm:(@pipedream\/[^@]+)@/.exec(r.component_url ?? "")?.[1];
    add({ key: r.key, name: r.name, description: r.description, type: meta.type === "action" ? "action" : "source", origin: "registry", ...(pkg ? { package: pkg } : {}) });
  }
  let app: ComponentSearch["app"];
  const appName = query.toLowerCase();
  if (opts.fetchApp !== false && APP_NAME.test(appName) && appName.length >= 2) {
    const pkg = `@pipedream/${appName}`;
    if (!deps.npm) app = { name: appName, package: pkg, status: "off" };
    else {
      try {
        const sources = await deps.npm.appSources(appName, requester);
        app = { name: appName, package: pkg, status: sources ? "listed" : "not_found" };
        // Every source of the app's package answers its name, whatever its key says.
        for (const s of sources ?? []) if (!found.has(s.key)) found.set(s.key, { ...vendorMatch(s), match: "prefix" });
      } catch (err) {
        if (!(err instanceof UnavailableError || err instanceof ComponentFetchError)) throw err;
        app = { name: appName, package: pkg, status: "unavailable", message: err.message };
      }
    }
  }
  for (const s of deps.npm?.fetchedSources() ?? []) add(vendorMatch(s));
  const data = [...found.values()].sort(byRank).slice(0, limit);
  return app ? { data, app } : { data };
}


function vendorMatch(s: PackageSource): Omit<ComponentMatch, "match"> {
return { key: s.key, name: s.name, description: s.description, type: "source", origin: "vendor", package: s.package };
}
