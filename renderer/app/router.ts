/**
 * Hash routing (`#/sources/dc_abc`): works the same from file:// in Electron and from the web
 * host, and survives a reload. Views read the route with `useRoute` and move with `navigate`.
 */
import { useSyncExternalStore } from "react";

export const VIEWS = ["sources", "components", "subscriptions", "flow", "workflows", "actions", "accounts", "env", "stores", "account"] as const;
export type ViewName = (typeof VIEWS)[number];

export interface Route {
  view: ViewName;
  /** The selected item (a source, component or workflow id), if any. */
  id: string | null;
  /** What the item's page opens, if anything: a workflow's run is `["runs", "<run id>"]`. */
  rest: string[];
}

export function parseRoute(hash: string): Route {
  const parts = hash.replace(/^#\/?/, "").split("/").filter(Boolean).map(decodeURIComponent);
  const view = VIEWS.find((v) => v === parts[0]) ?? "sources";
  return { view, id: parts[1] ?? null, rest: parts.slice(2) };
}

export function routeHref(view: ViewName, id?: string | null, ...rest: string[]): string {
  const more = id ? rest.map((p) => `/${encodeURIComponent(p)}`).join("") : "";
  return `#/${view}${id ? `/${encodeURIComponent(id)}` : ""}${more}`;
}

/** The address of one run of a workflow: its Runs tab with the run open. */
export const runHref = (workflowId: string, runId: string) => routeHref("workflows", workflowId, "runs", runId);

export function navigate(view: ViewName, id?: string | null): void {
  const href = routeHref(view, id);
  if (window.location.hash !== href) window.location.hash = href;
}

function subscribe(cb: () => void): () => void {
  window.addEventListener("hashchange", cb);
  return () => window.removeEventListener("hashchange", cb);
}

export function useRoute(): Route {
  const hash = useSyncExternalStore(subscribe, () => window.location.hash);
  return parseRoute(hash);
}
