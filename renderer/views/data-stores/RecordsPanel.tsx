/**
 * One store's records: a table in key order, a page at a time, narrowed by a key prefix; add,
 * edit (JSON value and TTL) and delete a record. Expired records are not listed: the server
 * answers only live ones.
 */
import { useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import type { DataStore, DataStoreRecord } from "../../../shared/resources/index.js";
import { call } from "../../state/bridge.js";
import { useStoreRecords } from "../../state/queries.js";
import { ConfirmDialog } from "../../ui/ConfirmDialog.js";
import { ErrorNote } from "../../ui/ErrorNote.js";
import { Pager, useCursorPages } from "../../ui/Pager.js";
import { Spinner } from "../../ui/Spinner.js";
import { toast } from "../../ui/Toasts.js";
import { RecordDialog } from "./RecordDialog.js";

const PAGE = 25;

type Dialog = { kind: "add" } | { kind: "edit"; r: DataStoreRecord } | { kind: "delete"; r: DataStoreRecord };

const preview = (v: unknown) => {
  const text = JSON.stringify(v);
  return text.length > 120 ? `${text.slice(0, 117)}...` : text;
};

export function RecordsPanel({ store }: { store: DataStore }) {
  const qc = useQueryClient();
  const [prefix, setPrefix] = useState("");
  const pages = useCursorPages(PAGE);
  const records = useStoreRecords(store.id, { ...pages.query, ...(prefix ? { prefix } : {}) });
  const [dialog, setDialog] = useState<Dialog | null>(null);
  const refresh = () => void qc.invalidateQueries({ queryKey: ["data_stores"] });
  const close = () => setDialog(null);
  const list = records.data?.data ?? [];
  const pager = pages.controls(records.data, records.isFetching);

  return (
    <section className="card store-records" aria-labelledby="records-title">
      <div className="section-head">
        <h2 id="records-title">Records of {store.name}</h2>
        {records.isFetching && <Spinner label="Loading records" />}
        <span className="spacer" />
        <label className="records-search">
          <span className="sr-only">Key prefix</span>
          <input
            type="search"
            placeholder="Key starts with…"
            aria-label="Search keys by prefix"
            value={prefix}
            onChange={(e) => {
              setPrefix(e.target.value);
              pages.reset();
            }}
          />
        </label>
        <button type="button" className="btn primary" onClick={() => setDialog({ kind: "add" })}>
          Add record
        </button>
      </div>
      <p className="muted small">
        Code reads this store through a prop <code>{`{ type: "data_store" }`}</code> configured with{" "}
        <code>{store.id}</code>.
      </p>
      <ErrorNote
        error={records.error}
        title="Could not load the records"
        onRetry={() => void records.refetch()}
      />
      {records.data && list.length === 0 && (
        <p className="muted">{prefix ? `No key starts with “${prefix}”.` : "No records yet."}</p>
      )}
      {list.length > 0 && (
        <table className="data-table records-table">
          <thead>
            <tr>
              <th scope="col">Key</th>
              <th scope="col">Value</th>
              <th scope="col">Expires</th>
              <th scope="col">
                <span className="sr-only">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {list.map((r) => (
              <tr key={r.key} aria-label={r.key}>
                <td>
                  <code>{r.key}</code>
                </td>
                <td>
                  <code className="record-value">{preview(r.value)}</code>
                </td>
                <td className="muted">
                  {r.expires_at_ms === null ? "never" : new Date(r.expires_at_ms).toLocaleString()}
                </td>
                <td className="actions">
                  <button
                    type="button"
                    className="btn small"
                    aria-label={`Edit ${r.key}`}
                    onClick={() => setDialog({ kind: "edit", r })}
                  >
                    Edit
                  </button>
                  <button
                    type="button"
                    className="btn small danger"
                    aria-label={`Delete ${r.key}`}
                    onClick={() => setDialog({ kind: "delete", r })}
                  >
                    Delete
                  </button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {pager.total > 0 && <Pager noun={["record", "records"]} labels={["← Previous", "Next →"]} {...pager} />}
      {dialog?.kind === "add" && <RecordDialog storeId={store.id} onClose={close} onSaved={refresh} />}
      {dialog?.kind === "edit" && (
        <RecordDialog storeId={store.id} existing={dialog.r} onClose={close} onSaved={refresh} />
      )}
      {dialog?.kind === "delete" && (
        <ConfirmDialog
          title={`Delete ${dialog.r.key}?`}
          message={<p>Code that reads this key finds nothing from now on.</p>}
          confirmLabel="Delete record"
          onConfirm={async () => {
            await call("deleteDataStoreRecord", store.id, dialog.r.key);
            refresh();
            toast(`Deleted ${dialog.r.key}`);
          }}
          onClose={close}
        />
      )}
    </section>
  );
}
