/**
 * Components: those the account's sources use (InUseList.tsx), the saved ones (paginated), look-up by key or id and in the registry, create from
 * code or URL, and one component's props, code and publish action.
 */
import { useQuery } from "@tanstack/react-query";
import { useState } from "react";
import { navigate } from "../../app/router.js";
import { call } from "../../state/bridge.js";
import { keys, useComponentsPage } from "../../state/queries.js";
import { ErrorNote } from "../../ui/ErrorNote.js";
import { MasterDetail } from "../../ui/MasterDetail.js";
import { Pager, useCursorPages } from "../../ui/Pager.js";
import { Spinner } from "../../ui/Spinner.js";
import { ComponentDetail } from "./ComponentDetail.js";
import { CreateComponentDialog } from "./CreateComponentDialog.js";
import { InUseList } from "./InUseList.js";

const PAGE_SIZE = 25;
const REGISTRY_PREFIX = "registry:";

export function ComponentsView({ selectedId }: { selectedId: string | null }) {
  const pages = useCursorPages(PAGE_SIZE);
  const [creating, setCreating] = useState(false);
  const [lookup, setLookup] = useState("");
  const page = useComponentsPage(pages.query);
  const pager = pages.controls(page.data, page.isFetching);
  const total = pager.total;

  const fromRegistry = selectedId?.startsWith(REGISTRY_PREFIX) ?? false;
  const ref = fromRegistry ? selectedId!.slice(REGISTRY_PREFIX.length) : selectedId;
  const selected = useQuery({
    queryKey: fromRegistry ? ["registry", ref] : keys.component(ref ?? ""),
    queryFn: () => (fromRegistry ? call("getRegistryComponent", ref ?? "") : call("getComponent", ref ?? "")),
    enabled: !!ref,
    retry: false,
  });

  return (
    <MasterDetail
      listLabel="Components"
      detailLabel="Component"
      selected={selectedId}
      list={
        <>
          <header className="master-head">
            <h1>Components</h1>
            <button
              type="button"
              className="btn primary small"
              aria-label="New component"
              onClick={() => setCreating(true)}
            >
              + New
            </button>
          </header>
          <form
            className="lookup"
            onSubmit={(e) => {
              e.preventDefault();
              if (lookup.trim()) navigate("components", lookup.trim());
            }}
          >
            <input
              type="search"
              aria-label="Component key or id"
              placeholder="Key or sc_… id"
              value={lookup}
              onChange={(e) => setLookup(e.target.value)}
            />
            <button type="submit" className="btn small" disabled={!lookup.trim()}>
              Look up
            </button>
            <button
              type="button"
              className="btn small"
              disabled={!lookup.trim()}
              onClick={() => navigate("components", REGISTRY_PREFIX + lookup.trim())}
            >
              Registry
            </button>
          </form>
          <ErrorNote
            error={page.error}
            title="Could not load components"
            onRetry={() => void page.refetch()}
          />
          {page.isPending && <Spinner label="Loading components" showLabel />}
          <InUseList selectedId={selectedId} />
          <h2 className="list-heading">Saved by you</h2>
          {page.data && page.data.data.length === 0 && (
            <div className="empty">
              You have saved no component of your own yet: + New saves one from code or a URL.
            </div>
          )}
          <ul className="item-list" aria-label="Saved components">
            {page.data?.data.map((c) => (
              <li key={c.id} className={c.id === selectedId ? "item selected" : "item"}>
                <a href={`#/components/${encodeURIComponent(c.id)}`} className="item-main">
                  <span className="item-title">{c.name}</span>
                  <span className="item-sub muted">
                    {c.key ?? c.id} · v{c.version}
                    {c.published ? " · published" : ""}
                  </span>
                </a>
              </li>
            ))}
          </ul>
          {total > 0 && <Pager noun={["component", "components"]} {...pager} />}
        </>
      }
      detail={
        !ref ? (
          <div className="empty big">Select a component, look one up by key, or create one from code.</div>
        ) : selected.isPending ? (
          <Spinner label="Loading the component" showLabel />
        ) : selected.error || !selected.data ? (
          <div className="page">
            <ErrorNote
              error={selected.error}
              title={fromRegistry ? `No registry component "${ref}"` : `Could not load "${ref}"`}
              onRetry={() => void selected.refetch()}
            />
          </div>
        ) : (
          <ComponentDetail component={selected.data} fromRegistry={fromRegistry} />
        )
      }
    >
      {creating && (
        <CreateComponentDialog
          onClose={() => setCreating(false)}
          onCreated={(c) => {
            setCreating(false);
            pages.reset();
            navigate("components", c.id);
          }}
        />
      )}
    </MasterDetail>
  );
}
