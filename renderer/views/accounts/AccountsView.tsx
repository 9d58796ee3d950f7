/**
 * Connected accounts: an app's credentials, stored once on the server (encrypted) and used by
 * sources and workflow steps through `{authProvisionId}`. Listed by app with their field names
 * and how many props use them; add one, replace its values, rename it, delete it (refused while
 * it is used, and then we say by what). Values go to the server and never come back.
 */
import { useQueryClient } from "@tanstack/react-query";
import { useMemo, useState } from "react";
import type { Account } from "../../../shared/resources/index.js";
import { BridgeCallError, call } from "../../state/bridge.js";
import { Time } from "../../ui/Time.js";
import { keys, useAllAccounts } from "../../state/queries.js";
import { ConfirmDialog } from "../../ui/ConfirmDialog.js";
import { ErrorNote } from "../../ui/ErrorNote.js";
import { Spinner } from "../../ui/Spinner.js";
import { toast } from "../../ui/Toasts.js";
import { AccountInUseDialog, type InUse } from "./AccountInUseDialog.js";
import { AddAccountDialog, RenameAccountDialog, ReplaceValuesDialog } from "./AccountDialogs.js";

/** "not used", "1 source or step", "3 sources or steps". */
export const usedByText = (n: number) => (n === 0 ? "not used" : n === 1 ? "1 source or step" : `${n} sources or steps`);

/** The user's accounts by app, apps in alphabetical order, each app's newest first (as listed). */
export function groupByApp(accounts: readonly Account[]): [string, Account[]][] {
  const groups = new Map<string, Account[]>();
  for (const a of accounts) groups.set(a.app, [...(groups.get(a.app) ?? []), a]);
  return [...groups].sort(([a], [b]) => a.localeCompare(b));
}

type Dialog =
  | { kind: "add" }
  | { kind: "replace"; account: Account }
  | { kind: "rename"; account: Account }
  | { kind: "delete"; account: Account }
  | { kind: "in-use"; inUse: InUse };

export function AccountsView() {
  const qc = useQueryClient();
  const accounts = useAllAccounts();
  const [app, setApp] = useState("");
  const [dialog, setDialog] = useState<Dialog | null>(null);
  const groups = useMemo(() => groupByApp(accounts.data ?? []), [accounts.data]);
  // A filter on an app whose last account was deleted shows every app again.
  const filter = groups.some(([name]) => name === app) ? app : "";
  const shown = groups.filter(([name]) => !filter || name === filter);
  const refresh = () => void qc.invalidateQueries({ queryKey: keys.accounts });
  const close = () => setDialog(null);

  const remove = async (account: Account) => {
    try {
      await call("deleteAccount", account.id);
    } catch (err) {
      // In use: not a failure of the dialog, an answer that needs its own explanation.
      if (err instanceof BridgeCallError && err.code === "account_in_use") {
        setDialog({ kind: "in-use", inUse: { account, details: err.details ?? [] } });
        refresh();
        return;
      }
      throw err;
    }
    refresh();
    toast(`Deleted ${account.name}`);
  };

  return (
    <div className="page wide">
      <header className="page-head">
        <h1>Connected accounts</h1>
        <p className="muted">
          An app&apos;s credentials, stored once on the server (encrypted) and used by any number of sources and
          workflow steps. Values are never shown again after saving: replace them instead.
        </p>
      </header>
      <section className="card accounts-panel" aria-labelledby="accounts-title">
        <div className="section-head">
          <h2 id="accounts-title">Accounts</h2>
          {accounts.isFetching && <Spinner label="Loading accounts" />}
          <span className="spacer" />
          {groups.length > 1 && (
            <div className="accounts-filter">
              <label htmlFor="accounts-app">App</label>
              <select id="accounts-app" value={filter} onChange={(e) => setApp(e.target.value)}>
                <option value="">All apps ({groups.length})</option>
                {groups.map(([name, list]) => (
                  <option key={name} value={name}>
                    {name} ({list.length})
                  </option>
                ))}
              </select>
            </div>
          )}
          <button type="button" className="btn primary" onClick={() => setDialog({ kind: "add" })}>
            Add account
          </button>
        </div>
        <ErrorNote error={accounts.error} title="Could not load the accounts" onRetry={() => void accounts.refetch()} />
        {accounts.data && accounts.data.length === 0 && (
          <p className="muted">
            No connected accounts yet. Add one here, or choose &quot;Add a new account&quot; for an app prop when you
            create a source.
          </p>
        )}
        {shown.map(([name, list]) => (
          <AppGroup
            key={name}
            app={name}
            accounts={list}
            onReplace={(account) => setDialog({ kind: "replace", account })}
            onRename={(account) => setDialog({ kind: "rename", account })}
            onDelete={(account) => setDialog({ kind: "delete", account })}
          />
        ))}
      </section>
      {dialog?.kind === "add" && <AddAccountDialog onClose={close} onSaved={refresh} />}
      {dialog?.kind === "replace" && <ReplaceValuesDialog account={dialog.account} onClose={close} onSaved={refresh} />}
      {dialog?.kind === "rename" && <RenameAccountDialog account={dialog.account} onClose={close} onSaved={refresh} />}
      {dialog?.kind === "delete" && (
        <DeleteAccountDialog
          account={dialog.account}
          onDelete={remove}
          // The confirmation closes itself once the call is answered: if the answer was "in use",
          // the dialog that explains it has taken its place and stays.
          onClose={() => setDialog((d) => (d?.kind === "delete" ? null : d))}
        />
      )}
      {dialog?.kind === "in-use" && <AccountInUseDialog inUse={dialog.inUse} onClose={close} />}
    </div>
  );
}

function AppGroup(props: {
  app: string;
  accounts: Account[];
  onReplace: (a: Account) => void;
  onRename: (a: Account) => void;
  onDelete: (a: Account) => void;
}) {
  const { app, accounts, onReplace, onRename, onDelete } = props;
  const titleId = `accounts-app-${app}`;
  return (
    <section className="accounts-app" aria-labelledby={titleId}>
      <h3 id={titleId}>
        {app} <span className="muted small">· {accounts.length === 1 ? "1 account" : `${accounts.length} accounts`}</span>
      </h3>
      <table className="data-table accounts-table">
        <thead>
          <tr>
            <th scope="col">Name</th>
            <th scope="col">Fields</th>
            <th scope="col">Used by</th>
            <th scope="col">Updated</th>
            <th scope="col">
              <span className="sr-only">Actions</span>
            </th>
          </tr>
        </thead>
        <tbody>
          {accounts.map((a) => (
            <tr key={a.id} aria-label={a.name}>
              <td>
                <span className="named">
                  <span>{a.name}</span>
                  <code className="muted small">{a.id}</code>
                </span>
              </td>
              <td>
                {a.fields.length === 0 ? (
                  <span className="muted">none</span>
                ) : (
                  <ul className="field-names" aria-label={`Fields of ${a.name}`}>
                    {a.fields.map((f) => (
                      <li key={f} className="chip">
                        {f}
                      </li>
                    ))}
                  </ul>
                )}
              </td>
              <td className={a.used_by === 0 ? "muted" : undefined}>{usedByText(a.used_by)}</td>
              <td className="muted"><Time ms={a.updated_at * 1000} /></td>
              <td className="actions">
                <button type="button" className="btn small" aria-label={`Replace values of ${a.name}`} onClick={() => onReplace(a)}>
                  Replace values
                </button>
                <button type="button" className="btn small" aria-label={`Rename ${a.name}`} onClick={() => onRename(a)}>
                  Rename
                </button>
                <button type="button" className="btn small danger" aria-label={`Delete ${a.name}`} onClick={() => onDelete(a)}>
                  Delete
                </button>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </section>
  );
}

function DeleteAccountDialog(props: { account: Account; onDelete: (a: Account) => Promise<void>; onClose: () => void }) {
  const { account, onDelete, onClose } = props;
  return (
    <ConfirmDialog
      title={`Delete ${account.name}?`}
      message={
        <>
          <p>
            The values of <strong>{account.name}</strong> ({account.app}) are deleted from the server. This cannot be
            undone.
          </p>
          {account.used_by > 0 && (
            <p>
              It is used by {usedByText(account.used_by)}: the server refuses to delete an account that is in use, and
              says which.
            </p>
          )}
        </>
      }
      confirmLabel="Delete account"
      onConfirm={() => onDelete(account)}
      onClose={onClose}
    />
  );
}
