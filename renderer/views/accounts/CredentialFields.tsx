/**
 * The rows of an account's credentials: a field name, its value, a remove button; and "Add a
 * credential". Every value is a password input: an account's values are never shown once saved,
 * and the form should not show them either while they are typed (a host name included: the
 * rule is the same for every field, whatever its name says).
 */
import type { CredentialField } from "./credentials.js";

export function CredentialFields(props: {
  /** Names the inputs: "`label`: host", "`label`: field 2 name". */
  label: string;
  fields: CredentialField[];
  onChange: (fields: CredentialField[]) => void;
  disabled?: boolean;
}) {
  const { label, fields, onChange, disabled } = props;
  const set = (i: number, patch: Partial<CredentialField>) =>
    onChange(fields.map((f, j) => (j === i ? { ...f, ...patch } : f)));
  return (
    <>
      {fields.length === 0 && <p className="muted">No credentials yet: add the fields this app needs.</p>}
      {fields.map((f, i) => (
        <div className="credential" key={i}>
          <input
            aria-label={`${label}: field ${i + 1} name`}
            placeholder="name, e.g. host"
            autoComplete="off"
            value={f.name}
            disabled={disabled}
            onChange={(e) => set(i, { name: e.target.value })}
          />
          <input
            aria-label={f.name ? `${label}: ${f.name}` : `${label}: field ${i + 1} value`}
            type="password"
            // "new-password": browsers must not offer the user's saved site passwords here.
            autoComplete="new-password"
            value={f.value}
            disabled={disabled}
            onChange={(e) => set(i, { value: e.target.value })}
          />
          <button
            type="button"
            className="btn small ghost"
            aria-label={`Remove ${f.name || `field ${i + 1}`}`}
            disabled={disabled}
            onClick={() => onChange(fields.filter((_, j) => j !== i))}
          >
            ×
          </button>
        </div>
      ))}
      <button
        type="button"
        className="btn small credential-add"
        disabled={disabled}
        onClick={() => onChange([...fields, { name: "", value: "" }])}
      >
        Add a credential
      </button>
    </>
  );
}
