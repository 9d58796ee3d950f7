/**
 * Data stores: keys and JSON values the user's sources and workflow steps share across runs
 * (a prop `{type: "data_store"}`). The stores, newest first, with their live keys; create, rename,
 * delete (refused while a source or step names the store, and the answer says which); the chosen
 * store's records below (RecordsPanel).
 */
import { useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import type { DataStore } from "../../../shared/resources/index.js";
import { call } from "../../state/bridge.js";
import { formatNumber } from "../../state/format.js";
import { useDataStores } from "../../state/queries.js";
import { ConfirmDialog } from "../../ui/ConfirmDialog.js";
import { ErrorNote } from "../../ui/ErrorNote.js";
import { Pager, useCursorPages } from "../../ui/Pager.js";
import { Spinner } from "../../ui/Spinner.js";
import { Time } from "../../ui/Time.js";
import { toast } from "../../ui/Toasts.js";
import { RecordsPanel } from "./RecordsPanel.js";
import { StoreNameDialog } from "./StoreNameDialog.js";

type Dialog = { kind: "create" } | { kind: "rename"; s: DataStore } | { kind: "delete"; s: DataStore };

export function DataStoresView() {
  const qc = useQueryClient();
  const pages = useCursorPages(20);
  const stores = useDataStores(pages.query);
  const [chosen, setChosen] = useState<string | null>(null);
  const [dialog, setDialog] = useState<Dialog | null>(null);
  const list = stores.data?.data ?? [];
  const selected = list.find((s) => s.id === chosen) ?? null;
  const refresh = () => void qc.invalidateQueries({ queryKey: ["data_stores"] });
  const close = () => setDialog(null);
  const pager = pages.controls(stores.data, stores.isFetching);

  return (
    <div className="page wide">
      <header className="page-head">
        <h1>Data stores</h1>
        <p className="muted">
          Keys and JSON values your sources and workflow steps keep across runs: a prop{" "}
          <code>{`{ type: "data_store" }`}</code> gives code <code>get</code>, <code>set</code> (with a TTL),{" "}
          <code>increment</code> and <code>compareAndSet</code>, exact when many runs use them at once.
        </p>
      </header>
      <section className="card stores-panel" aria-labelledby="stores-title">
        <div className="section-head">
          <h2 id="stores-title">Stores</h2>
          {stores.isFetching && <Spinner label="Loading data stores" />}
          <span className="spacer" />
          <button type="button" className="btn primary" onClick={() => setDialog({ kind: "create" })}>
            New data store
          </button>
        </div>
        <ErrorNote
          error={stores.error}
          title="Could not load the data stores"
          onRetry={() => void stores.refetch()}
        />
        {stores.data && list.length === 0 && <p className="muted">No data stores yet.</p>}
        {list.length > 0 && (
          <table className="data-table stores-table">
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Id</th>
                <th scope="col">Keys</th>
                <th scope="col">Updated</th>
                <th scope="col">
                  <span className="sr-only">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {list.map((s) => (
                <tr key={s.id} aria-label={s.name} className={s.id === chosen ? "selected" : undefined}>
                  <td>
                    <button
                      type="button"
                      className="link-button"
                      aria-pressed={s.id === chosen}
                      onClick={() => setChosen(s.id)}
                    >
                      {s.name}
                    </button>
                  </td>
                  <td>
                    <code>{s.id}</code>
                  </td>
                  <td>{formatNumber(s.keys)}</td>
                  <td className="muted">
                    <Time ms={s.updated_at * 1000} />
                  </td>
                  <td className="actions">
                    <button
                      type="button"
                      className="btn small"
                      aria-label={`Rename ${s.name}`}
                      onClick={() => setDialog({ kind: "rename", s })}
                    >
                      Rename
                    </button>
                    <button
                      type="button"
                      className="btn small danger"
                      aria-label={`Delete ${s.name}`}
                      onClick={() => setDialog({ kind: "delete", s })}
                    >
                      Delete
                    </button>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
        {pager.total > 0 && <Pager noun={["store", "stores"]} {...pager} />}
      </section>
      {selected && <RecordsPanel key={selected.id} store={selected} />}
      {dialog?.kind === "create" && (
        <StoreNameDialog
          onClose={close}
          onSaved={(s) => {
            pages.reset();
            setChosen(s.id);
            refresh();
          }}
        />
      )}
      {dialog?.kind === "rename" && <StoreNameDialog existing={dialog.s} onClose={close} onSaved={refresh} />}
      {dialog?.kind === "delete" && (
        <ConfirmDialog
          title={`Delete ${dialog.s.name}?`}
          message={
            <p>
              Its {formatNumber(dialog.s.keys)} record{dialog.s.keys === 1 ? "" : "s"} go with it. A store
              that a source or workflow step names cannot be deleted: change their props first.
            </p>
          }
          confirmLabel="Delete store"
          onConfirm={async () => {
            await call("deleteDataStore", dialog.s.id);
            if (chosen === dialog.s.id) setChosen(null);
            refresh();
            toast(`Deleted ${dialog.s.name}`);
          }}
          onClose={close}
        />
      )}
    </div>
  );
}
