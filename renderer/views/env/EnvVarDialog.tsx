/**
 * Adding or editing one environment variable. A secret's value is typed into a password input,
 * sent once and dropped with the form: the server never answers it, so editing a secret means
 * typing a new value that replaces it. A plain variable's value is shown and edited as text.
 */
import { useMutation } from "@tanstack/react-query";
import { useState } from "react";
import { EnvName, EnvValue, type EnvVar } from "../../../shared/resources/index.js";
import { call } from "../../state/bridge.js";
import { ErrorNote } from "../../ui/ErrorNote.js";
import { Field } from "../../ui/Field.js";
import { Modal } from "../../ui/Modal.js";
import { Spinner } from "../../ui/Spinner.js";
import { toast } from "../../ui/Toasts.js";

const firstIssue = (r: { success: boolean; error?: { issues: readonly { message: string }[] } }) =>
  r.success ? undefined : (r.error?.issues[0]?.message ?? "not valid");

/** `existing`: the variable being edited (its name stays); absent: a new one, not one of `taken`. */
export function EnvVarDialog(props: {
  existing?: EnvVar;
  taken: readonly string[];
  onClose: () => void;
  onSaved: (v: EnvVar) => void;
}) {
  const { existing, taken, onClose, onSaved } = props;
  const [name, setName] = useState(existing?.name ?? "");
  const [secret, setSecret] = useState(existing?.secret ?? true);
  // A plain value is there to edit; a secret's never came back from the server.
  const [value, setValue] = useState(existing && !existing.secret ? (existing.value ?? "") : "");
  const [errors, setErrors] = useState<{ name?: string; value?: string }>({});
  const save = useMutation({
    mutationFn: (v: { name: string; value: string; secret: boolean }) =>
      call("setEnvVar", v.name, { value: v.value, secret: v.secret }),
    onSuccess: (v) => {
      onSaved(v);
      toast(existing ? `Saved ${v.name}` : `Added ${v.name}`);
      onClose();
    },
  });
  const submit = () => {
    const n = name.trim();
    const errs: { name?: string; value?: string } = {};
    if (!existing) {
      errs.name = n === "" ? "enter a name, e.g. API_KEY" : firstIssue(EnvName.safeParse(n));
      if (!errs.name && taken.includes(n)) errs.name = `${n} exists already: edit it instead`;
    }
    // A secret is replaced by a new value: an empty one would be saved as the secret.
    if (secret && value === "")
      errs.value = existing?.secret ? "type the new value (the old one is not shown)" : "enter the value";
    else errs.value = firstIssue(EnvValue.safeParse(value));
    setErrors(errs);
    if (!errs.name && !errs.value) save.mutate({ name: existing?.name ?? n, value, secret });
  };
  const title = !existing
    ? "Add variable"
    : existing.secret
      ? `Replace the value of ${existing.name}`
      : `Edit ${existing.name}`;
  const formId = existing ? "edit-env-form" : "add-env-form";
  const busy = save.isPending;
  return (
    <Modal
      title={title}
      onClose={onClose}
      busy={busy}
      wide
      footer={
        <>
          {busy && <Spinner label="Saving" />}
          <button type="button" className="btn" onClick={onClose} disabled={busy}>
            Cancel
          </button>
          <button type="submit" form={formId} className="btn primary" disabled={busy}>
            {existing ? "Save" : "Add variable"}
          </button>
        </>
      }
    >
      <form
        id={formId}
        aria-label={title}
        onSubmit={(e) => {
          e.preventDefault();
          submit();
        }}
      >
        {!existing && (
          <Field
            id="env-name"
            label="Name"
            error={errors.name}
            hint="Letters, digits and _; code reads it as process.env.NAME"
          >
            <input
              id="env-name"
              value={name}
              onChange={(e) => setName(e.target.value)}
              autoComplete="off"
              spellCheck={false}
              disabled={busy}
              data-autofocus
            />
          </Field>
        )}
        <Field
          id="env-value"
          label="Value"
          error={errors.value}
          hint={
            secret
              ? "Not shown again once saved: editing a secret replaces its value"
              : "Shown in this list, to anyone with this key"
          }
        >
          {secret ? (
            <input
              id="env-value"
              type="password"
              value={value}
              onChange={(e) => setValue(e.target.value)}
              autoComplete="new-password"
              spellCheck={false}
              disabled={busy}
              {...(existing ? { "data-autofocus": true } : {})}
            />
          ) : (
            <textarea
              id="env-value"
              rows={3}
              value={value}
              onChange={(e) => setValue(e.target.value)}
              spellCheck={false}
              disabled={busy}
              {...(existing ? { "data-autofocus": true } : {})}
            />
          )}
        </Field>
        <label className="checkbox">
          <input
            type="checkbox"
            checked={secret}
            disabled={busy}
            onChange={(e) => {
              setSecret(e.target.checked);
              // Making a plain value secret keeps what was typed; a secret's typed value is not
              // shown as text when it is made plain: it is typed again.
              if (!e.target.checked && secret) setValue("");
            }}
          />
          Secret: encrypted on the server, never shown again, <code>****</code> in run logs
        </label>
        <ErrorNote
          error={save.error}
          title={existing ? `Could not save ${existing.name}` : "Could not add the variable"}
        />
      </form>
    </Modal>
  );
}
