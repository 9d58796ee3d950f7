/** The inputs generated from `configurable_props` (see propsForm.ts for the rules). */
import { useId, useState, type ReactNode } from "react";
import type { PropDescriptor } from "../../../shared/resources/index.js";
import { CredentialsGroup, RemoteChoices, type LoadChoices } from "./PropExtras.js";
import {
  configuredSoFar,
  editableProps,
  fieldKind,
  hasRemoteOptions,
  optionItems,
  type AppState,
  type FieldValue,
  type FormState,
  type TimerState,
} from "./propsForm.js";

export function PropsForm(props: {
  descriptors: readonly PropDescriptor[];
  state: FormState;
  onChange: (next: FormState) => void;
  errors: Record<string, string>;
  disabled?: boolean;
  /** The component's id: props with `async options()` ask it for their choices. */
  componentId?: string;
  /** Instead of a component id: how to ask a prop's choices (an action's, `actionOptions`). */
  loadChoices?: LoadChoices;
  /** The hint under a new account's credentials (who keeps them). */
  newAccountHint?: string;
  /** Values may be `{{ steps.<path> }}` text (a workflow step's): number inputs take any text. */
  references?: boolean;
  /** The source exists already (its Configuration tab): its endpoint URLs, by HTTP prop. */
  endpointUrls?: readonly { name: string; url: string }[];
}) {
  const {
    descriptors,
    state,
    onChange,
    errors,
    disabled,
    componentId,
    loadChoices,
    newAccountHint,
    references,
  } = props;
  const fields = editableProps(descriptors);
  const hasHttp = descriptors.some((p) => fieldKind(p) === "http");
  const set = (name: string, v: FieldValue) => onChange({ ...state, [name]: v });
  return (
    <div className="props-form">
      {hasHttp && !props.endpointUrls && <p className="muted">This source gets its own HTTP endpoint URL once it is created.</p>}
      {hasHttp &&
        props.endpointUrls?.map((u) => (
          <p className="muted" key={u.name}>
            Its HTTP endpoint: <code>{u.url}</code> (shown above, with a copy button; it stays the same when props are saved).
          </p>
        ))}
      {fields.length === 0 && (
        <p className="muted">{hasHttp ? "It has no other props to configure." : "This component has no props to configure."}</p>
      )}
      {fields.map((p) => (
        <PropField
          key={p.name}
          p={p}
          value={state[p.name]}
          error={errors[p.name]}
          disabled={disabled}
          onChange={(v) => set(p.name, v)}
          remote={
            (componentId || loadChoices) && hasRemoteOptions(p)
              ? {
                  componentId: componentId ?? "",
                  load: loadChoices,
                  configuredSoFar: () => configuredSoFar(descriptors, state),
                }
              : undefined
          }
          newAccountHint={newAccountHint}
          references={references}
        />
      ))}
    </div>
  );
}

function PropField(props: {
  p: PropDescriptor;
  value: FieldValue | undefined;
  error: string | undefined;
  disabled?: boolean;
  onChange: (v: FieldValue) => void;
  /** Where this prop's choices come from, when its definition has `async options()`. */
  remote?:
    | { componentId: string; load?: LoadChoices | undefined; configuredSoFar: () => Record<string, unknown> }
    | undefined;
  newAccountHint?: string | undefined;
  references?: boolean | undefined;
}) {
  const { p, value, error, disabled, onChange, remote, newAccountHint, references } = props;
  const id = useId();
  const kind = fieldKind(p);
  const label = p.label ?? p.name;
  const errId = `${id}-err`;
  const descId = `${id}-desc`;
  const describedBy =
    [p.description ? descId : null, error ? errId : null].filter(Boolean).join(" ") || undefined;
  const common = { id, disabled, "aria-invalid": error ? true : undefined, "aria-describedby": describedBy };
  const text = typeof value === "string" ? value : "";

  let input: ReactNode;
  switch (kind) {
    case "timer": {
      const t = (value ?? { mode: "interval", interval: "60", cron: "" }) as TimerState;
      input = (
        <div className="timer-field" role="group" aria-label={label}>
          <select
            aria-label={`${label}: schedule kind`}
            value={t.mode}
            disabled={disabled}
            onChange={(e) => onChange({ ...t, mode: e.target.value as TimerState["mode"] })}
          >
            <option value="interval">Every N seconds</option>
            <option value="cron">Cron expression</option>
          </select>
          {t.mode === "interval" ? (
            <input
              {...common}
              type="number"
              min={1}
              aria-label={`${label}: interval in seconds`}
              value={t.interval}
              onChange={(e) => onChange({ ...t, interval: e.target.value })}
            />
          ) : (
            <input
              {...common}
              type="text"
              aria-label={`${label}: cron expression`}
              placeholder="*/5 * * * *"
              value={t.cron}
              onChange={(e) => onChange({ ...t, cron: e.target.value })}
            />
          )}
        </div>
      );
      break;
    }
    case "app":
      input = (
        <NoCredentialsNeeded p={p} value={value as AppState | undefined}>
          <CredentialsGroup
            p={p}
            value={(value as AppState | undefined) ?? { mode: "new", accountId: "", fields: [] }}
            disabled={disabled}
            describedBy={describedBy}
            onChange={onChange}
            newAccountHint={newAccountHint}
          />
        </NoCredentialsNeeded>
      );
      break;
    case "boolean":
      input = (
        <label className="checkbox">
          <input
            {...common}
            type="checkbox"
            checked={value === true}
            onChange={(e) => onChange(e.target.checked)}
          />
          <span>{label}</span>
        </label>
      );
      break;
    case "select":
      input = (
        <select {...common} value={text} onChange={(e) => onChange(e.target.value)}>
          <option value="">{p.optional ? "(none)" : "Choose…"}</option>
          {optionItems(p).map((o) => (
            <option key={o.key} value={o.key}>
              {o.label}
            </option>
          ))}
        </select>
      );
      break;
    case "multiselect": {
      const chosen = Array.isArray(value) ? value : [];
      input = (
        <div className="multi" role="group" aria-labelledby={`${id}-label`}>
          {optionItems(p).map((o) => (
            <label key={o.key} className="checkbox">
              <input
                type="checkbox"
                disabled={disabled}
                checked={chosen.includes(o.key)}
                onChange={(e) =>
                  onChange(e.target.checked ? [...chosen, o.key] : chosen.filter((k) => k !== o.key))
                }
              />
              <span>{o.label}</span>
            </label>
          ))}
        </div>
      );
      break;
    }
    case "integer":
      input = (
        <input
          {...common}
          type={references ? "text" : "number"}
          inputMode={references ? "numeric" : undefined}
          min={references ? undefined : p.min}
          max={references ? undefined : p.max}
          value={text}
          onChange={(e) => onChange(e.target.value)}
        />
      );
      break;
    case "secret":
      input = (
        <input
          {...common}
          type="password"
          autoComplete="off"
          value={text}
          onChange={(e) => onChange(e.target.value)}
        />
      );
      break;
    case "string[]":
    case "integer[]":
      input = (
        <textarea
          {...common}
          rows={3}
          placeholder="One value per line"
          value={text}
          onChange={(e) => onChange(e.target.value)}
        />
      );
      break;
    case "json":
      input = (
        <textarea
          {...common}
          className="mono"
          rows={4}
          placeholder="JSON"
          value={text}
          onChange={(e) => onChange(e.target.value)}
        />
      );
      break;
    default:
      input = <input {...common} type="text" value={text} onChange={(e) => onChange(e.target.value)} />;
  }

  return (
    <div className={error ? "field invalid" : "field"}>
      {kind !== "boolean" && kind !== "app" && (
        <label id={`${id}-label`} htmlFor={kind === "timer" || kind === "multiselect" ? undefined : id}>
          {label}
          {p.optional ? <span className="muted"> (optional)</span> : null}
          {p.secret ? <span className="muted"> · secret</span> : null}
        </label>
      )}
      {input}
      {remote && (
        <RemoteChoices
          p={p}
          componentId={remote.componentId}
          load={remote.load}
          configuredSoFar={remote.configuredSoFar}
          text={text}
          disabled={disabled}
          onChange={onChange}
        />
      )}
      {p.description && (
        <div id={descId} className="hint">
          {p.description}
        </div>
      )}
      {error && (
        <div id={errId} className="field-error" role="alert">
          {label}: {error}
        </div>
      )}
    </div>
  );
}

/**
 * An app whose code reads no credentials (`authFields` empty: `helper_functions`) says so
 * instead of a credentials box; "Add credentials anyway" shows it (code that reads them in a way
 * the describe cannot see). Any value given already shows the box.
 */
function NoCredentialsNeeded({ p, value, children }: { p: PropDescriptor; value: AppState | undefined; children: ReactNode }) {
  const [shown, setShown] = useState(false);
  const given = !!value && (value.mode === "account" || value.fields.some((f) => f.name || f.value));
  if (shown || given || !p.authFields || p.authFields.length > 0) return <>{children}</>;
  return (
    <p className="muted no-credentials">
      {p.app ?? p.name} needs no credentials.{" "}
      <button type="button" className="link-button" onClick={() => setShown(true)}>
        Add credentials anyway
      </button>
    </p>
  );
}
