/**
 * Connection profiles: the local server and remote ones. Switch in one click, add a remote with
 * base URL + key, replace a key, remove a remote. A key is never shown back: only its last four.
 */
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import type { KeyStorage, Profile } from "../../../shared/bridge.js";
import { RemoteProfileInput } from "../../../shared/bridge.js";
import { call } from "../../state/bridge.js";
import { keys, useHostInfo, useProfiles } from "../../state/queries.js";
import { ConfirmDialog } from "../../ui/ConfirmDialog.js";
import { ErrorNote } from "../../ui/ErrorNote.js";
import { Spinner } from "../../ui/Spinner.js";
import { toast } from "../../ui/Toasts.js";

export function ConnectionsPanel() {
  const profiles = useProfiles();
  return (
    <section className="card" aria-label="Connections">
      <h2>Connections</h2>
      <ErrorNote
        error={profiles.error}
        title="Could not list connections"
        onRetry={() => void profiles.refetch()}
      />
      <ul className="profiles">
        {profiles.data?.map((p) => (
          <ProfileRow key={p.id} profile={p} />
        ))}
      </ul>
      <AddRemoteForm />
    </section>
  );
}

function keyText(p: Profile): string {
  return p.key.isSet ? `key …${p.key.lastFour ?? "????"}` : "no key";
}

function ProfileRow({ profile: p }: { profile: Profile }) {
  const qc = useQueryClient();
  const [replacing, setReplacing] = useState(false);
  const [newKey, setNewKey] = useState("");
  const [removing, setRemoving] = useState(false);
  const refresh = () => void qc.invalidateQueries({ queryKey: keys.profiles });
  const select = useMutation({ mutationFn: () => call("selectProfile", p.id), onSuccess: refresh });
  const setKey = useMutation({
    mutationFn: () => call("setProfileKey", p.id, newKey.trim()),
    onSuccess: () => {
      setReplacing(false);
      setNewKey("");
      refresh();
      toast("Key saved");
    },
  });
  return (
    <li className={p.current ? "profile current" : "profile"}>
      <div className="profile-main">
        <span className={`status-dot ${p.status}`} aria-hidden="true" />
        <div className="profile-info">
          <div>
            <strong>{p.name}</strong> <span className="chip">{p.kind}</span>
            {p.current && <span className="chip ok">in use</span>}
          </div>
          <div className="muted small">
            {p.baseUrl || "not started"} · {keyText(p)} · {p.status}
          </div>
          {(p.status === "failed" || p.status === "refused") && p.statusMessage && (
            <div className="inline-error">{p.statusMessage}</div>
          )}
        </div>
        <div className="profile-actions">
          {!p.current && (
            <button
              type="button"
              className="btn small primary"
              onClick={() => select.mutate()}
              disabled={select.isPending}
              aria-label={`Use ${p.name}`}
            >
              Use
            </button>
          )}
          {/* Local's key is managed by the app (the host refuses to replace it). */}
          {p.kind === "remote" && (
            <button
              type="button"
              className="btn small"
              onClick={() => setReplacing(!replacing)}
              aria-label={`Replace key of ${p.name}`}
            >
              Replace key
            </button>
          )}
          {p.kind === "remote" && (
            <button
              type="button"
              className="btn small danger"
              onClick={() => setRemoving(true)}
              aria-label={`Remove ${p.name}`}
            >
              Remove
            </button>
          )}
          {select.isPending && <Spinner label="Switching" />}
        </div>
      </div>
      <ErrorNote error={select.error} title="Could not switch" onDismiss={() => select.reset()} />
      {replacing && (
        <form
          className="inline-form"
          onSubmit={(e) => {
            e.preventDefault();
            if (newKey.trim()) setKey.mutate();
          }}
        >
          <label htmlFor={`key-${p.id}`}>New API key</label>
          <input
            id={`key-${p.id}`}
            type="password"
            autoComplete="off"
            value={newKey}
            onChange={(e) => setNewKey(e.target.value)}
          />
          <button type="submit" className="btn small primary" disabled={setKey.isPending || !newKey.trim()}>
            Save key
          </button>
          {setKey.isPending && <Spinner label="Saving the key" />}
        </form>
      )}
      <ErrorNote error={setKey.error} title="Could not save the key" />
      {removing && (
        <ConfirmDialog
          title={`Remove ${p.name}?`}
          message={
            <p>The connection and its stored key are removed from this app. Nothing changes on the server.</p>
          }
          confirmLabel="Remove connection"
          onConfirm={async () => {
            await call("removeProfile", p.id);
            refresh();
          }}
          onClose={() => setRemoving(false)}
        />
      )}
    </li>
  );
}

/** Where the host keeps keys, in words that are true for it (the key itself never comes here). */
const KEY_STORAGE_TEXT: Record<KeyStorage, string> = {
  "os-encrypted": "Stored encrypted with the operating system's keychain",
  file: "Stored in a file in your user data folder that only your user can read (not encrypted)",
  memory: "Kept in memory only, until the app quits",
};

function AddRemoteForm() {
  const qc = useQueryClient();
  const host = useHostInfo();
  const [name, setName] = useState("");
  const [baseUrl, setBaseUrl] = useState("");
  const [apiKey, setApiKey] = useState("");
  const [errors, setErrors] = useState<Record<string, string>>({});
  const add = useMutation({
    mutationFn: (input: RemoteProfileInput) => call("addRemoteProfile", input),
    onSuccess: (p) => {
      setName("");
      setBaseUrl("");
      setApiKey("");
      void qc.invalidateQueries({ queryKey: keys.profiles });
      toast(`Added ${p.name}`);
    },
  });
  const submit = () => {
    const input = { name, baseUrl: baseUrl.trim(), apiKey };
    const parsed = RemoteProfileInput.safeParse(input);
    if (!parsed.success) {
      const e: Record<string, string> = {};
      for (const i of parsed.error.issues) e[String(i.path[0])] ??= i.message;
      return setErrors(e);
    }
    setErrors({});
    add.mutate(parsed.data);
  };
  return (
    <form
      className="add-remote"
      aria-label="Add a remote connection"
      onSubmit={(e) => {
        e.preventDefault();
        submit();
      }}
    >
      <h3>Add a remote server</h3>
      <div className="field">
        <label htmlFor="remote-name">Name</label>
        <input
          id="remote-name"
          value={name}
          onChange={(e) => setName(e.target.value)}
          placeholder="Production"
        />
        {errors.name && (
          <div className="field-error" role="alert">
            Name: {errors.name}
          </div>
        )}
      </div>
      <div className="field">
        <label htmlFor="remote-url">Base URL</label>
        <input
          id="remote-url"
          value={baseUrl}
          onChange={(e) => setBaseUrl(e.target.value)}
          placeholder="https://api.pipedream.com/v1"
        />
        {errors.baseUrl && (
          <div className="field-error" role="alert">
            Base URL: {errors.baseUrl}
          </div>
        )}
      </div>
      <div className="field">
        <label htmlFor="remote-key">API key</label>
        <input
          id="remote-key"
          type="password"
          autoComplete="off"
          value={apiKey}
          onChange={(e) => setApiKey(e.target.value)}
        />
        {errors.apiKey && (
          <div className="field-error" role="alert">
            API key: {errors.apiKey}
          </div>
        )}
        <div className="hint">
          {host.data ? `${KEY_STORAGE_TEXT[host.data.keyStorage]}; only` : "Only"} its last four characters
          are shown again.
        </div>
      </div>
      <ErrorNote error={add.error} title="Could not add the connection" />
      <div className="form-actions start">
        <button type="submit" className="btn primary" disabled={add.isPending}>
          Add and connect
        </button>
        {add.isPending && <Spinner label="Connecting" showLabel />}
      </div>
    </form>
  );
}
