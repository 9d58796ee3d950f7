/**
 * Two parts of the props form for real apps: an app prop's credentials (the `$auth` fields, named
 * and typed by the user, secret-looking ones masked) and the choices of a prop whose definition
 * has `async options()`, asked of the server with the props configured so far and offered as a
 * select beside the typed value.
 */
import { useState } from "react";
import type { PropDescriptor, PropOption } from "../../../shared/resources/index.js";
import { isSecretName } from "../../../shared/secrets.js";
import { call } from "../../state/bridge.js";
import { ErrorNote } from "../../ui/ErrorNote.js";
import { Spinner } from "../../ui/Spinner.js";
import { optionText, type AppState } from "./propsForm.js";

export function CredentialsGroup(props: {
  p: PropDescriptor;
  value: AppState;
  disabled?: boolean;
  describedBy?: string;
  onChange: (v: AppState) => void;
}) {
  const { p, value, disabled, describedBy, onChange } = props;
  const label = p.label ?? p.name;
  const fields = value.fields;
  const set = (i: number, patch: Partial<AppState["fields"][number]>) =>
    onChange({ fields: fields.map((f, j) => (j === i ? { ...f, ...patch } : f)) });
  return (
    <fieldset className="credentials" aria-describedby={describedBy} disabled={disabled}>
      <legend>
        {label} credentials{p.app ? <span className="muted"> · app {p.app}</span> : null}
      </legend>
      {fields.length === 0 && <p className="muted">No credentials yet: add the fields this app needs.</p>}
      {fields.map((f, i) => (
        <div className="credential" key={i}>
          <input
            aria-label={`${label}: field ${i + 1} name`}
            placeholder="name, e.g. host"
            value={f.name}
            onChange={(e) => set(i, { name: e.target.value })}
          />
          <input
            aria-label={f.name ? `${label}: ${f.name}` : `${label}: field ${i + 1} value`}
            type={isSecretName(f.name) ? "password" : "text"}
            autoComplete="off"
            value={f.value}
            onChange={(e) => set(i, { value: e.target.value })}
          />
          <button
            type="button"
            className="btn small ghost"
            aria-label={`Remove ${f.name || `field ${i + 1}`}`}
            onClick={() => onChange({ fields: fields.filter((_, j) => j !== i) })}
          >
            ×
          </button>
        </div>
      ))}
      <button type="button" className="btn small" onClick={() => onChange({ fields: [...fields, { name: "", value: "" }] })}>
        Add a credential
      </button>
    </fieldset>
  );
}

/**
 * Loads the prop's choices on request (each answer runs the component's code in a sandbox, and
 * its options often need credentials filled in first), with "More" while the answer says there
 * is a next page. Picking one sets the value (arrays get it added as a line).
 */
export function RemoteChoices(props: {
  p: PropDescriptor;
  componentId: string;
  configuredSoFar: () => Record<string, unknown>;
  text: string;
  disabled?: boolean;
  onChange: (text: string) => void;
}) {
  const { p, componentId, configuredSoFar, text, disabled, onChange } = props;
  const label = p.label ?? p.name;
  const [choices, setChoices] = useState<PropOption[] | null>(null);
  const [next, setNext] = useState<{ page: number; context: Record<string, unknown> } | null>(null);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const many = p.type.endsWith("[]");

  const load = async (more: boolean) => {
    setBusy(true);
    setError(null);
    try {
      const page = more && next ? next.page : 0;
      const answer = await call("propOptions", componentId, p.name, {
        configured_props: configuredSoFar(),
        page,
        ...(more && next ? { prev_context: next.context } : {}),
      });
      const got = more ? [...(choices ?? []), ...answer.data] : answer.data;
      setChoices(got);
      // A context and a full-looking page mean there may be more.
      const ctx = answer.context;
      const hasMore = answer.data.length > 0 && ctx !== null && typeof ctx === "object" && !Array.isArray(ctx);
      setNext(hasMore ? { page: page + 1, context: ctx as Record<string, unknown> } : null);
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };

  const pick = (key: string) => {
    const o = choices?.find((c) => JSON.stringify(c.value) === key);
    if (!o) return;
    const t = optionText(o.value);
    if (!many) return onChange(t);
    const lines = text.split("\n").filter((l) => l.trim() !== "");
    if (!lines.includes(t)) onChange([...lines, t].join("\n"));
  };
  const current = choices?.find((c) => optionText(c.value) === text.trim());

  return (
    <div className="remote-choices">
      {choices && (
        <select
          aria-label={`${label}: choices`}
          value={many || !current ? "" : JSON.stringify(current.value)}
          disabled={disabled}
          onChange={(e) => pick(e.target.value)}
        >
          <option value="">{choices.length === 0 ? "No choices" : many ? "Add a choice…" : "Choose…"}</option>
          {choices.map((o) => (
            <option key={JSON.stringify(o.value)} value={JSON.stringify(o.value)}>
              {o.label}
            </option>
          ))}
        </select>
      )}
      <button
        type="button"
        className="btn small"
        aria-label={`${choices ? "Reload" : "Load"} choices for ${label}`}
        disabled={disabled || busy}
        onClick={() => void load(false)}
      >
        {choices ? "Reload choices" : "Load choices"}
      </button>
      {next && (
        <button
          type="button"
          className="btn small"
          aria-label={`More choices for ${label}`}
          disabled={disabled || busy}
          onClick={() => void load(true)}
        >
          More
        </button>
      )}
      {busy && <Spinner label={`Loading the choices of ${label}`} />}
      <ErrorNote error={error} title={`Could not load the choices of ${label}`} onDismiss={() => setError(null)} />
    </div>
  );
}
