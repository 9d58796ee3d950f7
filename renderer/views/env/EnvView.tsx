/**
 * Environment variables: the user's named values, read by their workflow steps, actions and
 * sources as `process.env.NAME` (and by action step props as `{{process.env.NAME}}`). Listed by
 * name; add, edit, delete. A secret's value is never shown: the server never answers it, so the
 * list says "hidden" and editing a secret replaces its value.
 */
import { useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { ENV_LIMITS, type EnvVar } from "../../../shared/resources/index.js";
import { call } from "../../state/bridge.js";
import { keys, useEnvVars } from "../../state/queries.js";
import { ConfirmDialog } from "../../ui/ConfirmDialog.js";
import { ErrorNote } from "../../ui/ErrorNote.js";
import { Spinner } from "../../ui/Spinner.js";
import { Time } from "../../ui/Time.js";
import { toast } from "../../ui/Toasts.js";
import { EnvVarDialog } from "./EnvVarDialog.js";

type Dialog = { kind: "add" } | { kind: "edit"; v: EnvVar } | { kind: "delete"; v: EnvVar };

export function EnvView() {
  const qc = useQueryClient();
  const vars = useEnvVars();
  const [dialog, setDialog] = useState<Dialog | null>(null);
  const list = vars.data ?? [];
  const refresh = () => void qc.invalidateQueries({ queryKey: keys.env });
  const close = () => setDialog(null);
  const full = list.length >= ENV_LIMITS.perUser;

  return (
    <div className="page wide">
      <header className="page-head">
        <h1>Environment</h1>
        <p className="muted">
          Values your workflow steps, actions and sources read as <code>process.env.NAME</code> (an action
          step&apos;s props as <code>{"{{process.env.NAME}}"}</code>). A secret is encrypted on the server,
          never shown again, and replaced by <code>****</code> in run logs and records. Runs that start after
          a change read the new value.
        </p>
      </header>
      <section className="card env-panel" aria-labelledby="env-title">
        <div className="section-head">
          <h2 id="env-title">Variables</h2>
          {vars.isFetching && <Spinner label="Loading variables" />}
          <span className="spacer" />
          <span className="muted small">
            {list.length} of {ENV_LIMITS.perUser}
          </span>
          <button
            type="button"
            className="btn primary"
            disabled={full}
            title={full ? `At most ${ENV_LIMITS.perUser} variables: delete one first` : undefined}
            onClick={() => setDialog({ kind: "add" })}
          >
            Add variable
          </button>
        </div>
        <ErrorNote
          error={vars.error}
          title="Could not load the variables"
          onRetry={() => void vars.refetch()}
        />
        {vars.data && list.length === 0 && (
          <p className="muted">
            No variables yet. Add an API key as a secret, then read it in a step as{" "}
            <code>process.env.API_KEY</code>.
          </p>
        )}
        {list.length > 0 && (
          <table className="data-table env-table">
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Value</th>
                <th scope="col">Updated</th>
                <th scope="col">
                  <span className="sr-only">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {list.map((v) => (
                <tr key={v.name} aria-label={v.name}>
                  <td>
                    <code>{v.name}</code>
                  </td>
                  <td>
                    {v.secret ? (
                      <span className="muted">
                        <span className="chip">secret</span> hidden
                      </span>
                    ) : (
                      <code className="env-value">{v.value}</code>
                    )}
                  </td>
                  <td className="muted">
                    <Time ms={v.updated_at * 1000} />
                  </td>
                  <td className="actions">
                    <button
                      type="button"
                      className="btn small"
                      aria-label={v.secret ? `Replace value of ${v.name}` : `Edit ${v.name}`}
                      onClick={() => setDialog({ kind: "edit", v })}
                    >
                      {v.secret ? "Replace value" : "Edit"}
                    </button>
                    <button
                      type="button"
                      className="btn small danger"
                      aria-label={`Delete ${v.name}`}
                      onClick={() => setDialog({ kind: "delete", v })}
                    >
                      Delete
                    </button>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </section>
      {dialog?.kind === "add" && (
        <EnvVarDialog taken={list.map((v) => v.name)} onClose={close} onSaved={refresh} />
      )}
      {dialog?.kind === "edit" && (
        <EnvVarDialog existing={dialog.v} taken={[]} onClose={close} onSaved={refresh} />
      )}
      {dialog?.kind === "delete" && (
        <ConfirmDialog
          title={`Delete ${dialog.v.name}?`}
          message={
            <p>
              Runs that start after this no longer see <code>process.env.{dialog.v.name}</code>.
              {dialog.v.secret ? " Its value cannot be recovered." : ""}
            </p>
          }
          confirmLabel="Delete variable"
          onConfirm={async () => {
            await call("deleteEnvVar", dialog.v.name);
            refresh();
            toast(`Deleted ${dialog.v.name}`);
          }}
          onClose={close}
        />
      )}
    </div>
  );
}
