/**
 * Account: the user, quotas with usage bars, key rotation; the connection profiles; connecting an
 * agent over MCP (AgentPanel); and for admins, the server's users (UsersPanel).
 */
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import type { KeyStatus } from "../../../shared/bridge.js";
import { call } from "../../state/bridge.js";
import { formatDuration, formatNumber } from "../../state/format.js";
import { keys, useMe, useProfiles } from "../../state/queries.js";
import { ConfirmDialog } from "../../ui/ConfirmDialog.js";
import { ErrorNote } from "../../ui/ErrorNote.js";
import { Spinner } from "../../ui/Spinner.js";
import { UsageBar } from "../../ui/UsageBar.js";
import { toast } from "../../ui/Toasts.js";
import { AgentPanel } from "./AgentPanel.js";
import { ConnectionsPanel } from "./ConnectionsPanel.js";
import { UsersPanel } from "./UsersPanel.js";

export function AccountView() {
  const profiles = useProfiles();
  const current = profiles.data?.find((p) => p.current);
  // A refused key still shows the user card: its error says the key was refused.
  const usable = current?.status === "ready" || current?.status === "refused";
  const me = useMe(usable);
  return (
    <div className="page wide">
      <header className="page-head">
        <h1>Account</h1>
      </header>
      <div className="two-col">
        {usable ? <UserCard /> : <div className="card muted">Connect to see the account.</div>}
        <ConnectionsPanel />
      </div>
      {/* Keyed by connection: a test's answer is about the connection it ran on. */}
      {current && (
        <AgentPanel key={`${current.id} ${current.baseUrl}`} profile={current} admin={me.data?.admin} />
      )}
      {usable && me.data?.admin === true && <UsersPanel meId={me.data.id} />}
    </div>
  );
}

function UserCard() {
  const qc = useQueryClient();
  const me = useMe();
  const [confirm, setConfirm] = useState(false);
  const [newKey, setNewKey] = useState<KeyStatus | null>(null);
  const rotate = useMutation({
    mutationFn: () => call("rotateApiKey"),
    onSuccess: (r) => {
      qc.setQueryData(keys.me, r.user);
      void qc.invalidateQueries({ queryKey: keys.profiles });
      setNewKey(r.key);
      toast("API key rotated");
    },
  });
  if (me.isPending)
    return (
      <div className="card">
        <Spinner label="Loading the account" showLabel />
      </div>
    );
  if (me.error || !me.data) {
    return (
      <div className="card">
        <ErrorNote error={me.error} title="Could not load the account" onRetry={() => void me.refetch()} />
      </div>
    );
  }
  const u = me.data;
  const hasCompute = u.daily_compute_time_quota !== undefined && u.daily_compute_time_used !== undefined;
  const hasInvocations = u.daily_invocations_quota !== undefined && u.daily_invocations_used !== undefined;
  return (
    <section className="card" aria-label="User">
      <h2>{u.username}</h2>
      <dl className="meta grid2">
        <dt>Email</dt>
        <dd>{u.email || <span className="muted">none</span>}</dd>
        <dt>User ID</dt>
        <dd>
          <code>{u.id}</code>
        </dd>
        {u.admin !== undefined && (
          <>
            <dt>Role</dt>
            <dd>{u.admin ? "Administrator" : "User"}</dd>
          </>
        )}
      </dl>
      <h3>Today&apos;s usage</h3>
      {hasCompute && (
        <UsageBar
          label="Compute time"
          used={u.daily_compute_time_used ?? 0}
          quota={u.daily_compute_time_quota ?? 0}
          format={formatDuration}
        />
      )}
      {hasInvocations && (
        <UsageBar
          label="Invocations"
          used={u.daily_invocations_used ?? 0}
          quota={u.daily_invocations_quota ?? 0}
          format={formatNumber}
        />
      )}
      {!hasCompute && !hasInvocations && <p className="muted">This server does not report quotas.</p>}
      <p className="muted small">Quotas reset at 00:00 UTC.</p>
      <h3>API key</h3>
      <p className="muted small">
        Rotating issues a new key and stores it for this connection; the old key stops working at once
        everywhere else.
      </p>
      {newKey?.lastFour && (
        <p role="status">
          New key stored, ending in <code>…{newKey.lastFour}</code>.
        </p>
      )}
      <ErrorNote error={rotate.error} title="Could not rotate the key" onDismiss={() => rotate.reset()} />
      <div className="form-actions start">
        <button type="button" className="btn" onClick={() => setConfirm(true)} disabled={rotate.isPending}>
          Rotate API key
        </button>
        {rotate.isPending && <Spinner label="Rotating the key" showLabel />}
      </div>
      {confirm && (
        <ConfirmDialog
          title="Rotate the API key?"
          message={
            <p>
              The current key stops working immediately. Scripts and other apps that use it need the new key.
            </p>
          }
          confirmLabel="Rotate key"
          onConfirm={() => rotate.mutateAsync()}
          onClose={() => setConfirm(false)}
        />
      )}
    </section>
  );
}
