/**
 * The Accounts panel's forms: add an account (app, name, credentials), replace all of its values
 * at once, rename it. Values are typed into password inputs, sent once, and dropped from the
 * form's state when it closes: the server never answers them.
 */
import { useMutation } from "@tanstack/react-query";
import { useState } from "react";
import { CreateAccountBody, UpdateAccountBody, type Account } from "../../../shared/resources/index.js";
import { call } from "../../state/bridge.js";
import { ErrorNote } from "../../ui/ErrorNote.js";
import { Field } from "../../ui/Field.js";
import { Modal } from "../../ui/Modal.js";
import { Spinner } from "../../ui/Spinner.js";
import { toast } from "../../ui/Toasts.js";
import { CredentialFields } from "./CredentialFields.js";
import { authFromFields, emptyFields, type CredentialField } from "./credentials.js";

/** First zod message per top-level field, for showing under its input. */
function fieldErrors(issues: readonly { path: PropertyKey[]; message: string }[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const i of issues) out[String(i.path[0] ?? "")] ??= i.message;
  return out;
}

/** The credentials as `auth`, every named row with a value, at least one. */
function authOrError(fields: readonly CredentialField[]): { auth: Record<string, string> } | { error: string } {
  const r = authFromFields(fields, { requireValues: true });
  if (!r.ok) return { error: r.error };
  if (Object.keys(r.auth).length === 0) return { error: "add at least one credential, with its value" };
  return { auth: r.auth };
}

function Credentials(props: { fields: CredentialField[]; onChange: (f: CredentialField[]) => void; error?: string | undefined; disabled?: boolean }) {
  const { fields, onChange, error, disabled } = props;
  return (
    <fieldset className={error ? "credentials invalid" : "credentials"} aria-describedby="account-credentials-hint">
      <legend>Credentials</legend>
      <CredentialFields label="Credentials" fields={fields} onChange={onChange} disabled={disabled} />
      <div id="account-credentials-hint" className="hint">
        Field names as the app&apos;s code reads them (<code>this.pg.$auth.host</code> → <code>host</code>). Values are not
        shown again once saved.
      </div>
      {error && (
        <div className="field-error" role="alert">
          Credentials: {error}
        </div>
      )}
    </fieldset>
  );
}

function Footer(props: { form: string; busy: boolean; label: string; onClose: () => void }) {
  return (
    <>
      {props.busy && <Spinner label="Saving" />}
      <button type="button" className="btn" onClick={props.onClose} disabled={props.busy}>
        Cancel
      </button>
      <button type="submit" form={props.form} className="btn primary" disabled={props.busy}>
        {props.label}
      </button>
    </>
  );
}

export function AddAccountDialog(props: { onClose: () => void; onSaved: (a: Account) => void }) {
  const { onClose, onSaved } = props;
  const [app, setApp] = useState("");
  const [name, setName] = useState("");
  const [fields, setFields] = useState<CredentialField[]>(() => emptyFields([""]));
  const [errors, setErrors] = useState<Record<string, string>>({});
  const create = useMutation({
    mutationFn: (body: CreateAccountBody) => call("createAccount", body),
    onSuccess: (a) => {
      onSaved(a);
      toast(`Added ${a.name}`);
      onClose();
    },
  });
  const submit = () => {
    const creds = authOrError(fields);
    const parsed = CreateAccountBody.safeParse({
      app: app.trim(),
      ...(name.trim() ? { name: name.trim() } : {}),
      auth: "auth" in creds ? creds.auth : {},
    });
    const errs = parsed.success ? {} : fieldErrors(parsed.error.issues);
    if (!app.trim()) errs.app = "enter the app's name, e.g. postgresql";
    if ("error" in creds) errs.auth = creds.error;
    setErrors(errs);
    if (parsed.success && !("error" in creds)) create.mutate(parsed.data);
  };
  return (
    <Modal
      title="Add account"
      onClose={onClose}
      busy={create.isPending}
      wide
      footer={<Footer form="add-account-form" busy={create.isPending} label="Add account" onClose={onClose} />}
    >
      <form
        id="add-account-form"
        aria-label="Add account"
        onSubmit={(e) => {
          e.preventDefault();
          submit();
        }}
      >
        <Field id="new-account-app" label="App" error={errors.app} hint='As a component names it: app: "postgresql"'>
          <input
            id="new-account-app"
            value={app}
            onChange={(e) => setApp(e.target.value)}
            autoComplete="off"
            spellCheck={false}
            disabled={create.isPending}
            data-autofocus
          />
        </Field>
        <Field id="new-account-name" label="Name" error={errors.name} hint="Optional: the server names it after the app (postgresql #2)">
          <input id="new-account-name" value={name} onChange={(e) => setName(e.target.value)} autoComplete="off" disabled={create.isPending} />
        </Field>
        <Credentials fields={fields} onChange={setFields} error={errors.auth} disabled={create.isPending} />
        <ErrorNote error={create.error} title="Could not add the account" />
      </form>
    </Modal>
  );
}

export function ReplaceValuesDialog(props: { account: Account; onClose: () => void; onSaved: (a: Account) => void }) {
  const { account, onClose, onSaved } = props;
  // The account's field names, to type every value again (the old ones cannot be read back).
  const [fields, setFields] = useState<CredentialField[]>(() => emptyFields(account.fields.length ? account.fields : [""]));
  const [error, setError] = useState<string | undefined>();
  const save = useMutation({
    mutationFn: (auth: Record<string, string>) => call("updateAccount", account.id, { auth }),
    onSuccess: (a) => {
      onSaved(a);
      toast(`Replaced the values of ${a.name}`);
      onClose();
    },
  });
  const submit = () => {
    const creds = authOrError(fields);
    setError("error" in creds ? creds.error : undefined);
    if ("auth" in creds) save.mutate(creds.auth);
  };
  return (
    <Modal
      title={`Replace the values of ${account.name}`}
      onClose={onClose}
      busy={save.isPending}
      wide
      footer={<Footer form="replace-account-form" busy={save.isPending} label="Replace values" onClose={onClose} />}
    >
      <form
        id="replace-account-form"
        aria-label={`Replace the values of ${account.name}`}
        onSubmit={(e) => {
          e.preventDefault();
          submit();
        }}
      >
        <p>
          Every value is replaced at once: type each one again, and remove the fields the app no longer needs. Runs that
          start after saving use the new values.
        </p>
        <Credentials fields={fields} onChange={setFields} error={error} disabled={save.isPending} />
        <ErrorNote error={save.error} title="Could not replace the values" />
      </form>
    </Modal>
  );
}

export function RenameAccountDialog(props: { account: Account; onClose: () => void; onSaved: (a: Account) => void }) {
  const { account, onClose, onSaved } = props;
  const [name, setName] = useState(account.name);
  const [error, setError] = useState<string | undefined>();
  const save = useMutation({
    mutationFn: (next: string) => call("updateAccount", account.id, { name: next }),
    onSuccess: (a) => {
      onSaved(a);
      toast(`Renamed to ${a.name}`);
      onClose();
    },
  });
  const submit = () => {
    const next = name.trim();
    if (next === account.name) return onClose();
    const parsed = UpdateAccountBody.safeParse({ name: next });
    setError(!next ? "enter a name" : parsed.success ? undefined : (parsed.error.issues[0]?.message ?? "not a valid name"));
    if (parsed.success) save.mutate(next);
  };
  return (
    <Modal
      title={`Rename ${account.name}`}
      onClose={onClose}
      busy={save.isPending}
      footer={<Footer form="rename-account-form" busy={save.isPending} label="Rename" onClose={onClose} />}
    >
      <form
        id="rename-account-form"
        aria-label={`Rename ${account.name}`}
        onSubmit={(e) => {
          e.preventDefault();
          submit();
        }}
      >
        <Field id="rename-account-name" label="Name" error={error}>
          <input id="rename-account-name" value={name} onChange={(e) => setName(e.target.value)} autoComplete="off" disabled={save.isPending} data-autofocus />
        </Field>
        <ErrorNote error={save.error} title="Could not rename the account" />
      </form>
    </Modal>
  );
}
