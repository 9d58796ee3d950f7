/**
 * Account → Users, for admins: every user of the server with today's use of their quotas; create
 * a user (their key is shown once, to hand over), edit quotas and the admin flag, disable or
 * enable, delete (after a confirmation). All through window.headwater's users operations.
 */
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import type { BridgeManagedUser } from "../../../shared/bridge.js";
import { CreateUserBody, type UpdateUserBody } from "../../../shared/resources/index.js";
import { call } from "../../state/bridge.js";
import { formatDuration, formatNumber } from "../../state/format.js";
import { keys, useUsersPage } from "../../state/queries.js";
import { ConfirmDialog } from "../../ui/ConfirmDialog.js";
import { CopyButton } from "../../ui/CopyButton.js";
import { ErrorNote } from "../../ui/ErrorNote.js";
import { Field } from "../../ui/Field.js";
import { Modal } from "../../ui/Modal.js";
import { Pager, useCursorPages } from "../../ui/Pager.js";
import { Spinner } from "../../ui/Spinner.js";
import { toast } from "../../ui/Toasts.js";

const PAGE_SIZE = 25;
const MINUTE_MS = 60_000;

export function UsersPanel({ meId }: { meId: string }) {
  const qc = useQueryClient();
  const pages = useCursorPages(PAGE_SIZE);
  const users = useUsersPage(pages.query);
  const [creating, setCreating] = useState(false);
  const [editing, setEditing] = useState<BridgeManagedUser | null>(null);
  const [deleting, setDeleting] = useState<BridgeManagedUser | null>(null);
  const refresh = () => void qc.invalidateQueries({ queryKey: keys.allUsers });
  const toggle = useMutation({
    mutationFn: (u: BridgeManagedUser) => call("updateUser", u.id, { disabled: !u.disabled }),
    onSuccess: (u) => {
      refresh();
      toast(`${u.username} ${u.disabled ? "disabled" : "enabled"}`);
    },
  });

  return (
    <section className="card users-panel" aria-label="Users">
      <div className="section-head">
        <h2>Users</h2>
        {users.isFetching && <Spinner label="Loading users" />}
        <button type="button" className="btn primary" onClick={() => setCreating(true)}>
          New user
        </button>
      </div>
      <p className="muted small">
        Each user has their own key and sees only their own sources, components and workflows. Quotas left
        empty follow the server&apos;s defaults.
      </p>
      <ErrorNote error={users.error} title="Could not load the users" onRetry={() => void users.refetch()} />
      <ErrorNote error={toggle.error} title="Could not change the user" onDismiss={() => toggle.reset()} />
      {users.data && (
        <table className="data-table">
          <thead>
            <tr>
              <th scope="col">User</th>
              <th scope="col">Role</th>
              <th scope="col">Status</th>
              <th scope="col">Invocations today</th>
              <th scope="col">Compute today</th>
              <th scope="col">
                <span className="sr-only">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {users.data.data.map((u) => (
              <tr key={u.id} aria-label={u.username}>
                <td>
                  <span className="named">
                    <span>
                      {u.username} {u.id === meId && <span className="chip">you</span>}
                    </span>
                    <span className="muted small">{u.email || u.id}</span>
                  </span>
                </td>
                <td>{u.admin ? "Administrator" : "User"}</td>
                <td>
                  <span className={u.disabled ? "user-status disabled" : "user-status"}>
                    <span className="dot" aria-hidden="true" />
                    {u.disabled ? "disabled" : "active"}
                  </span>
                </td>
                <td>
                  <Usage used={u.daily_invocations_used} quota={u.daily_invocations_quota} own={u.quota_overrides?.daily_invocations_quota} format={formatNumber} />
                </td>
                <td>
                  <Usage used={u.daily_compute_time_used} quota={u.daily_compute_time_quota} own={u.quota_overrides?.daily_compute_time_quota} format={formatDuration} />
                </td>
                <td className="actions">
                  <button type="button" className="btn small" aria-label={`Edit ${u.username}`} onClick={() => setEditing(u)}>
                    Edit
                  </button>
                  {/* No locking yourself out from here: another admin can. */}
                  {u.id !== meId && (
                    <>
                      <button
                        type="button"
                        className="btn small"
                        aria-label={`${u.disabled ? "Enable" : "Disable"} ${u.username}`}
                        disabled={toggle.isPending}
                        onClick={() => toggle.mutate(u)}
                      >
                        {u.disabled ? "Enable" : "Disable"}
                      </button>
                      <button type="button" className="btn small danger" aria-label={`Delete ${u.username}`} onClick={() => setDeleting(u)}>
                        Delete
                      </button>
                    </>
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {users.data && <Pager noun={["user", "users"]} {...pages.controls(users.data, users.isFetching)} />}
      {creating && (
        <CreateUserDialog
          onClose={() => setCreating(false)}
          onCreated={() => {
            pages.reset();
            refresh();
          }}
        />
      )}
      {editing && <EditUserDialog user={editing} onClose={() => setEditing(null)} onSaved={refresh} />}
      {deleting && (
        <ConfirmDialog
          title={`Delete ${deleting.username}?`}
          message={
            <p>
              This deletes <strong>{deleting.username}</strong> and everything they own: components, sources,
              workflows, subscriptions and events. Their key and endpoints stop working at once. This cannot be
              undone.
            </p>
          }
          confirmLabel="Delete user"
          onConfirm={async () => {
            await call("deleteUser", deleting.id);
            refresh();
            toast(`${deleting.username} deleted`);
          }}
          onClose={() => setDeleting(null)}
        />
      )}
    </section>
  );
}

function Usage(props: { used?: number | undefined; quota?: number | undefined; own?: number | null | undefined; format: (n: number) => string }) {
  const { used, quota, own, format } = props;
  if (quota === undefined) return <span className="muted">–</span>;
  return (
    <span>
      {format(used ?? 0)} of {format(quota)} {own !== null && own !== undefined && <span className="chip">custom</span>}
    </span>
  );
}

function CreateUserDialog({ onClose, onCreated }: { onClose: () => void; onCreated: () => void }) {
  const [username, setUsername] = useState("");
  const [email, setEmail] = useState("");
  const [admin, setAdmin] = useState(false);
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [created, setCreated] = useState<{ username: string; apiKey: string } | null>(null);
  const create = useMutation({
    mutationFn: (body: CreateUserBody) => call("createUser", body),
    onSuccess: (r) => {
      setCreated({ username: r.user.username, apiKey: r.apiKey });
      onCreated();
      toast(`${r.user.username} created`);
    },
  });

  if (created) {
    return (
      <Modal
        title={`API key for ${created.username}`}
        onClose={onClose}
        footer={
          <button type="button" className="btn primary" onClick={onClose}>
            Done
          </button>
        }
      >
        <p>
          This key is shown only now. Copy it and give it to {created.username}: it cannot be shown again (they
          can rotate it, or you can delete the user and create them again).
        </p>
        <p className="key-once">
          <code aria-label={`API key for ${created.username}`}>{created.apiKey}</code>{" "}
          <CopyButton text={created.apiKey} label="Copy the key" />
        </p>
      </Modal>
    );
  }

  const submit = () => {
    const body = { username: username.trim(), ...(email.trim() ? { email: email.trim() } : {}), ...(admin ? { admin } : {}) };
    const parsed = CreateUserBody.safeParse(body);
    if (!parsed.success) {
      const out: Record<string, string> = {};
      for (const i of parsed.error.issues) out[String(i.path[0] ?? "")] ??= i.message;
      return setErrors(out);
    }
    setErrors({});
    create.mutate(parsed.data);
  };
  return (
    <Modal
      title="New user"
      onClose={onClose}
      busy={create.isPending}
      footer={
        <>
          {create.isPending && <Spinner label="Creating" />}
          <button type="button" className="btn" onClick={onClose} disabled={create.isPending}>
            Cancel
          </button>
          <button type="submit" form="new-user-form" className="btn primary" disabled={create.isPending}>
            Create user
          </button>
        </>
      }
    >
      <form
        id="new-user-form"
        aria-label="New user"
        onSubmit={(e) => {
          e.preventDefault();
          submit();
        }}
      >
        <Field id="new-user-name" label="Username" error={errors.username} hint="Letters, digits, '_', '.' and '-'">
          <input id="new-user-name" value={username} onChange={(e) => setUsername(e.target.value)} autoComplete="off" data-autofocus />
        </Field>
        <Field id="new-user-email" label="Email" error={errors.email} hint="Optional">
          <input id="new-user-email" type="email" value={email} onChange={(e) => setEmail(e.target.value)} autoComplete="off" />
        </Field>
        <label className="checkbox">
          <input type="checkbox" checked={admin} onChange={(e) => setAdmin(e.target.checked)} /> Administrator (can manage
          users)
        </label>
        <ErrorNote error={create.error} title="Could not create the user" />
      </form>
    </Modal>
  );
}

/** A quota input's text: empty means the server's default (`null`). */
function parseQuota(text: string, scale: number): { value: number | null } | { error: string } {
  const t = text.trim();
  if (t === "") return { value: null };
  if (!/^\d+(\.\d+)?$/.test(t)) return { error: "a number, 0 or more (empty: the server's default)" };
  const value = Math.round(Number(t) * scale);
  return Number.isSafeInteger(value) ? { value } : { error: "too large" };
}

function EditUserDialog({ user, onClose, onSaved }: { user: BridgeManagedUser; onClose: () => void; onSaved: () => void }) {
  const own = user.quota_overrides;
  const [invocations, setInvocations] = useState(own?.daily_invocations_quota != null ? String(own.daily_invocations_quota) : "");
  const [minutes, setMinutes] = useState(own?.daily_compute_time_quota != null ? String(own.daily_compute_time_quota / MINUTE_MS) : "");
  const [admin, setAdmin] = useState(user.admin === true);
  const [errors, setErrors] = useState<Record<string, string>>({});
  const save = useMutation({
    mutationFn: (body: UpdateUserBody) => call("updateUser", user.id, body),
    onSuccess: (u) => {
      onSaved();
      toast(`${u.username} saved`);
      onClose();
    },
  });
  const submit = () => {
    const inv = parseQuota(invocations, 1);
    const cpu = parseQuota(minutes, MINUTE_MS);
    const errs: Record<string, string> = {};
    if ("error" in inv) errs.invocations = inv.error;
    if ("error" in cpu) errs.compute = cpu.error;
    setErrors(errs);
    if ("error" in inv || "error" in cpu) return;
    const body: UpdateUserBody = { daily_invocations_quota: inv.value, daily_compute_time_quota: cpu.value };
    // Only a change of role is sent: re-sending `admin` could never help and might refuse (last admin).
    if (admin !== (user.admin === true)) body.admin = admin;
    save.mutate(body);
  };
  return (
    <Modal
      title={`Edit ${user.username}`}
      onClose={onClose}
      busy={save.isPending}
      footer={
        <>
          {save.isPending && <Spinner label="Saving" />}
          <button type="button" className="btn" onClick={onClose} disabled={save.isPending}>
            Cancel
          </button>
          <button type="submit" form="edit-user-form" className="btn primary" disabled={save.isPending}>
            Save
          </button>
        </>
      }
    >
      <form
        id="edit-user-form"
        aria-label={`Edit ${user.username}`}
        onSubmit={(e) => {
          e.preventDefault();
          submit();
        }}
      >
        <Field
          id="edit-user-invocations"
          label="Invocations per day"
          error={errors.invocations}
          hint={`Empty: the server's default${own?.daily_invocations_quota == null && user.daily_invocations_quota !== undefined ? ` (${formatNumber(user.daily_invocations_quota)})` : ""}`}
        >
          <input id="edit-user-invocations" inputMode="numeric" value={invocations} onChange={(e) => setInvocations(e.target.value)} placeholder="default" />
        </Field>
        <Field
          id="edit-user-compute"
          label="Compute minutes per day"
          error={errors.compute}
          hint={`Empty: the server's default${own?.daily_compute_time_quota == null && user.daily_compute_time_quota !== undefined ? ` (${formatDuration(user.daily_compute_time_quota)})` : ""}`}
        >
          <input id="edit-user-compute" inputMode="decimal" value={minutes} onChange={(e) => setMinutes(e.target.value)} placeholder="default" />
        </Field>
        <label className="checkbox">
          <input type="checkbox" checked={admin} onChange={(e) => setAdmin(e.target.checked)} /> Administrator (can manage
          users)
        </label>
        <ErrorNote error={save.error} title="Could not save" />
      </form>
    </Modal>
  );
}
