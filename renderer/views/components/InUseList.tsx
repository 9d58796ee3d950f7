/**
 * The components the account's sources run, whoever saved them (the registry's built-ins and
 * the vendor's included): what a newcomer who created sources from the registry has "in use",
 * though they saved no component of their own. Each names how many sources use it.
 */
import { useQueries } from "@tanstack/react-query";
import type { Component } from "../../../shared/resources/index.js";
import { call } from "../../state/bridge.js";
import { keys, useAllSources } from "../../state/queries.js";
import { Spinner } from "../../ui/Spinner.js";

/** Most components read for the list (one request each). */
const MAX_IN_USE = 50;

export function useComponentsInUse(): { components: { component: Component; sources: number }[]; pending: boolean } {
  const sources = useAllSources(true);
  const counts = new Map<string, number>();
  for (const s of sources.data ?? []) counts.set(s.component_id, (counts.get(s.component_id) ?? 0) + 1);
  const ids = [...counts.keys()].slice(0, MAX_IN_USE);
  const reads = useQueries({
    queries: ids.map((id) => ({ queryKey: keys.component(id), queryFn: () => call("getComponent", id), retry: false })),
  });
  const components = reads
    .map((r, i) => (r.data ? { component: r.data, sources: counts.get(ids[i]!) ?? 0 } : undefined))
    .filter((x): x is { component: Component; sources: number } => !!x)
    .sort((a, b) => b.sources - a.sources || a.component.name.localeCompare(b.component.name));
  return { components, pending: sources.isPending || reads.some((r) => r.isPending) };
}

export function InUseList({ selectedId }: { selectedId: string | null }) {
  const { components, pending } = useComponentsInUse();
  if (pending && components.length === 0) return <Spinner label="Loading the components in use" />;
  if (components.length === 0) return null;
  return (
    <>
      <h2 className="list-heading">In use by your sources</h2>
      <ul className="item-list" aria-label="Components in use">
        {components.map(({ component: c, sources }) => (
          <li key={c.id} className={c.id === selectedId ? "item selected" : "item"}>
            <a href={`#/components/${encodeURIComponent(c.id)}`} className="item-main">
              <span className="item-title">{c.name}</span>
              <span className="item-sub muted">
                {c.key ?? c.id} · {sources} {sources === 1 ? "source" : "sources"}
              </span>
            </a>
          </li>
        ))}
      </ul>
    </>
  );
}
