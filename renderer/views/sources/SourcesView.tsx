/**
 * Sources: a paginated, searchable list beside the selected source (its live events first).
 * With nothing selected the newest source opens, so a first launch lands on live events.
 */
import { useEffect, useState } from "react";
import type { Source } from "../../../shared/resources/index.js";
import { navigate } from "../../app/router.js";
import { useAllSources, useSetSourceActive, useSourcesPage } from "../../state/queries.js";
import { ErrorNote } from "../../ui/ErrorNote.js";
import { MasterDetail } from "../../ui/MasterDetail.js";
import { Pager, useCursorPages } from "../../ui/Pager.js";
import { Spinner } from "../../ui/Spinner.js";
import { Switch } from "../../ui/Switch.js";
import { CreateSourceDialog } from "./CreateSourceDialog.js";
import { SourceDetail } from "./SourceDetail.js";

const PAGE_SIZE = 25;

export function SourcesView(props: { selectedId: string | null }) {
  const { selectedId } = props;
  const [creating, setCreating] = useState(false);
  const pages = useCursorPages(PAGE_SIZE);
  const [search, setSearch] = useState("");
  const page = useSourcesPage(pages.query);
  const searching = search.trim().length > 0;
  const all = useAllSources(searching);
  const needle = search.trim().toLowerCase();
  const list: Source[] | undefined = searching
    ? all.data?.filter((s) => `${s.name} ${s.id} ${s.component_id}`.toLowerCase().includes(needle))
    : page.data?.data;

  // Only from settled data: during a refetch (e.g. after a connection switch) the list on
  // screen may still be the previous connection's.
  const first = page.data && !page.isFetching ? pickFirst(page.data.data) : undefined;
  useEffect(() => {
    if (!selectedId && first && pages.pageNo === 1) navigate("sources", first.id);
  }, [selectedId, first, pages.pageNo]);

  const pager = pages.controls(page.data, page.isFetching);
  const total = pager.total;
  return (
    <MasterDetail
      listLabel="Sources"
      detailLabel="Source"
      selected={selectedId}
      list={
        <>
          <header className="master-head">
            <h1>Sources</h1>
            <button type="button" className="btn primary small" onClick={() => setCreating(true)}>
              + New source
            </button>
          </header>
          <input
            type="search"
            className="search"
            placeholder="Search sources"
            aria-label="Search sources"
            value={search}
            onChange={(e) => setSearch(e.target.value)}
          />
          {(selectedId || searching) && (
            <ErrorNote
              error={searching ? all.error : page.error}
              title="Could not load sources"
              onRetry={() => void (searching ? all.refetch() : page.refetch())}
            />
          )}
          {(searching ? all.isPending : page.isPending) && <Spinner label="Loading sources" showLabel />}
          {list && list.length === 0 && (
            <div className="empty">
              {searching
                ? "No source matches."
                : "No sources yet. Create one from a component to start receiving events."}
            </div>
          )}
          <ul className="item-list" aria-label="Source list">
            {list?.map((s) => (
              <SourceItem key={s.id} source={s} selected={s.id === selectedId} />
            ))}
          </ul>
          {!searching && total > 0 && <Pager noun={["source", "sources"]} {...pager} />}
        </>
      }
      detail={
        selectedId ? (
          <SourceDetail key={selectedId} id={selectedId} />
        ) : page.error ? (
          <div className="page">
            <ErrorNote
              error={page.error}
              title="Could not load sources"
              onRetry={() => void page.refetch()}
            />
          </div>
        ) : (
          <div className="empty big">{page.isPending ? "" : "Select a source, or create one."}</div>
        )
      }
    >
      {creating && (
        <CreateSourceDialog
          onClose={() => setCreating(false)}
          onCreated={(s) => {
            setCreating(false);
            pages.reset();
            navigate("sources", s.id);
          }}
        />
      )}
    </MasterDetail>
  );
}

/**
 * What opens when nothing is selected: the newest active source that emits on its own (a timer),
 * so a first launch shows events arriving; else the newest source.
 */
function pickFirst(list: Source[]): Source | undefined {
  const emitsAlone = (s: Source) =>
    Object.values(s.configured_props ?? {}).some(
      (v) => v !== null && typeof v === "object" && "interval_seconds" in v,
    );
  return list.find((s) => s.active && emitsAlone(s)) ?? list[0];
}

function SourceItem({ source, selected }: { source: Source; selected: boolean }) {
  const setActive = useSetSourceActive();
  return (
    <li className={selected ? "item selected" : "item"}>
      <a
        href={`#/sources/${encodeURIComponent(source.id)}`}
        className="item-main"
        aria-current={selected ? "true" : undefined}
      >
        <span className="item-title">{source.name}</span>
        <span className="item-sub muted">{source.id}</span>
      </a>
      <Switch
        label={`Active: ${source.name}`}
        checked={source.active}
        busy={setActive.isPending}
        disabled={setActive.isPending}
        onChange={(active) => setActive.mutate({ source, active })}
      />
      {setActive.error && (
        <div className="item-error" role="alert">
          Could not {source.active ? "deactivate" : "activate"}: {setActive.error.message}
        </div>
      )}
    </li>
  );
}
