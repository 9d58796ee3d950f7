/**
 * Two parts of the props form for real apps: an app prop's account (an existing connected
 * account, or a new one's credentials typed here, every value masked) and the choices of a prop
 * whose definition has `async options()`, asked of the server with the props configured so far
 * and offered as a select beside the typed value.
 */
import { useId, useState } from "react";
import type {
  PropDescriptor,
  PropOption,
  PropOptions,
  PropOptionsBody,
} from "../../../shared/resources/index.js";
import { call } from "../../state/bridge.js";
import { useAllAccounts } from "../../state/queries.js";
import { ErrorNote } from "../../ui/ErrorNote.js";
import { Spinner } from "../../ui/Spinner.js";
import { CredentialFields } from "../accounts/CredentialFields.js";
import { optionText, type AppState } from "./propsForm.js";

/**
 * An app prop: "Use an existing account" (a select of the user's accounts of the prop's app, or
 * of every app when the prop names none) or "Add a new account" (its credentials, sent with the
 * source as `$auth`; see AppState in propsForm.ts).
 */
export function CredentialsGroup(props: {
  p: PropDescriptor;
  value: AppState;
  disabled?: boolean;
  describedBy?: string | undefined;
  onChange: (v: AppState) => void;
  newAccountHint?: string | undefined;
}) {
  const { p, value, disabled, describedBy, onChange, newAccountHint } = props;
  const id = useId();
  const label = p.label ?? p.name;
  return (
    <fieldset className="credentials" aria-describedby={describedBy} disabled={disabled}>
      <legend>
        {label} credentials{p.app ? <span className="muted"> · app {p.app}</span> : null}
      </legend>
      <div className="account-mode">
        <label>
          <input
            type="radio"
            name={`${id}-mode`}
            checked={value.mode === "account"}
            onChange={() => onChange({ ...value, mode: "account" })}
          />
          Use an existing account
        </label>
        <label>
          <input
            type="radio"
            name={`${id}-mode`}
            checked={value.mode === "new"}
            onChange={() => onChange({ ...value, mode: "new" })}
          />
          Add a new account
        </label>
      </div>
      {value.mode === "account" ? (
        <AccountSelect
          p={p}
          accountId={value.accountId}
          onChange={(accountId) => onChange({ ...value, accountId })}
        />
      ) : (
        <>
          <CredentialFields
            label={label}
            fields={value.fields}
            onChange={(fields) => onChange({ ...value, fields })}
          />
          <p className="hint">
            {newAccountHint ??
              "Saved on the server as a connected account named after the source and this prop; the values are not shown again."}
          </p>
        </>
      )}
    </fieldset>
  );
}

/**
 * The user's connected accounts of an app prop's app (of every app when it names none), as a
 * select: a source's, an action step's and a code step's app props choose their account with it.
 */
export function AccountSelect(props: {
  p: PropDescriptor;
  accountId: string;
  onChange: (accountId: string) => void;
  disabled?: boolean;
  invalid?: boolean;
  describedBy?: string | undefined;
  /** What the user may do when there is no account (the default offers a new one's credentials). */
  noAccountHint?: string;
}) {
  const { p, accountId, onChange } = props;
  const label = p.label ?? p.name;
  const accounts = useAllAccounts();
  const choices = (accounts.data ?? []).filter((a) => !p.app || a.app === p.app);
  // A reference the list does not hold (not loaded, or another page) still shows as chosen.
  const unlisted = accountId !== "" && !choices.some((a) => a.id === accountId);
  const appWord = p.app ? `${p.app} ` : "";
  return (
    <>
      <select
        aria-label={`${label}: account`}
        value={accountId}
        disabled={props.disabled}
        aria-invalid={props.invalid ? true : undefined}
        aria-describedby={props.describedBy}
        onChange={(e) => onChange(e.target.value)}
      >
        <option value="">{accounts.isPending ? "Loading the accounts…" : "Choose an account…"}</option>
        {unlisted && <option value={accountId}>{accountId}</option>}
        {choices.map((a) => (
          <option key={a.id} value={a.id}>
            {a.name}
            {p.app ? "" : ` (${a.app})`}
            {a.fields.length ? ` · ${a.fields.join(", ")}` : ""}
          </option>
        ))}
      </select>
      {accounts.isFetching && <Spinner label="Loading the accounts" />}
      <ErrorNote
        error={accounts.error}
        title="Could not load the accounts"
        onRetry={() => void accounts.refetch()}
      />
      {accounts.data && choices.length === 0 && (
        <p className="muted">
          No {appWord}account yet:{" "}
          {props.noAccountHint ?? 'choose "Add a new account", or add one under Connected accounts.'}
        </p>
      )}
    </>
  );
}

/** Asks a prop's choices somewhere other than a component's options endpoint (an action's). */
export type LoadChoices = (propName: string, body: PropOptionsBody) => Promise<PropOptions>;

/**
 * Loads the prop's choices on request (each answer runs the component's code in a sandbox, and
 * its options often need credentials filled in first), with "More" while the answer says there
 * is a next page. Picking one sets the value (arrays get it added as a line).
 */
export function RemoteChoices(props: {
  p: PropDescriptor;
  componentId: string;
  /** Replaces the component's options endpoint when given. */
  load?: LoadChoices | undefined;
  configuredSoFar: () => Record<string, unknown>;
  text: string;
  disabled?: boolean;
  onChange: (text: string) => void;
}) {
  const { p, componentId, load: loadFrom, configuredSoFar, text, disabled, onChange } = props;
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
      const body: PropOptionsBody = {
        configured_props: configuredSoFar(),
        page,
        ...(more && next ? { prev_context: next.context } : {}),
      };
      const answer = loadFrom
        ? await loadFrom(p.name, body)
        : await call("propOptions", componentId, p.name, body);
      const got = more ? [...(choices ?? []), ...answer.data] : answer.data;
      setChoices(got);
      // A context and a full-looking page mean there may be more.
      const ctx = answer.context;
      const hasMore =
        answer.data.length > 0 && ctx !== null && typeof ctx === "object" && !Array.isArray(ctx);
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
      <ErrorNote
        error={error}
        title={`Could not load the choices of ${label}`}
        onDismiss={() => setError(null)}
      />
    </div>
  );
}
