/**
 * Actions: find one of an app's actions (or one of your own), fill its props with the sources'
 * props form (app props: an existing connected account or new credentials, sent inline as
 * `$auth` for this run only; `options: true` props load their choices from the server), run it,
 * and read the result: summary, return value, exports, logs, the error, the duration.
 */
import { useMutation } from "@tanstack/react-query";
import { useMemo, useState } from "react";
import type { Action, ActionResult } from "../../../shared/resources/index.js";
import { call } from "../../state/bridge.js";
import { plainText } from "../../state/format.js";
import { ErrorNote } from "../../ui/ErrorNote.js";
import { JsonTree } from "../../ui/JsonTree.js";
import { Spinner } from "../../ui/Spinner.js";
import type { LoadChoices } from "../sources/PropExtras.js";
import { PropsForm } from "../sources/PropsForm.js";
import { buildConfiguredProps, initialState, type FormState } from "../sources/propsForm.js";
import { ActionPicker } from "./ActionPicker.js";
import { actionDescriptors } from "./actionForm.js";

/** How to name an action to the server: the account's own by component id, the vendor's by key. */
export const actionRef = (a: Action) => (a.component_id ? { component_id: a.component_id } : { key: a.key });

/** A prop's choices from the action's `options()`, in the shape the props form reads. */
export const actionChoices =
  (a: Action): LoadChoices =>
  async (propName, body) => {
    const answer = await call("actionOptions", {
      ...actionRef(a),
      prop_name: propName,
      ...(body.configured_props ? { configured_props: body.configured_props } : {}),
      ...(body.page !== undefined ? { page: body.page } : {}),
      ...(body.prev_context ? { prev_context: body.prev_context } : {}),
      ...(body.query !== undefined ? { query: body.query } : {}),
    });
    return { data: answer.options, context: answer.context };
  };

export function ActionsView() {
  const [action, setAction] = useState<Action | null>(null);
  return (
    <div className="page wide">
      <header className="page-head">
        <h1>Actions</h1>
        <p className="muted">
          Run one of an app&apos;s actions now, with the props you give it. The same actions can be steps of a
          workflow.
        </p>
      </header>
      <section className="card" aria-labelledby="actions-find-title">
        <h2 id="actions-find-title">Find an action</h2>
        <ActionPicker selectedKey={action?.key ?? null} onPick={setAction} />
      </section>
      {action && <ActionRunner key={action.component_id ?? action.key} action={action} />}
    </div>
  );
}

function ActionRunner({ action }: { action: Action }) {
  const descriptors = useMemo(() => actionDescriptors(action), [action]);
  const [state, setState] = useState<FormState>(() => initialState(descriptors));
  const [errors, setErrors] = useState<Record<string, string>>({});
  const run = useMutation({
    mutationFn: (configured_props: Record<string, unknown>) =>
      call("runAction", { ...actionRef(action), configured_props }),
  });
  const submit = () => {
    const built = buildConfiguredProps(descriptors, state);
    if (!built.ok) return setErrors(built.errors);
    setErrors({});
    run.mutate(built.value);
  };
  return (
    <section className="card" aria-labelledby="action-run-title">
      <h2 id="action-run-title">{action.name}</h2>
      <p className="muted">
        <code>{action.key}</code> · version {action.version}
        {action.app ? ` · app ${action.app}` : ""}
      </p>
      {action.description && <p className="action-description">{plainText(action.description)}</p>}
      <form
        aria-label={`Props of ${action.name}`}
        onSubmit={(e) => {
          e.preventDefault();
          submit();
        }}
      >
        <PropsForm
          descriptors={descriptors}
          state={state}
          onChange={setState}
          errors={errors}
          disabled={run.isPending}
          loadChoices={actionChoices(action)}
          newAccountHint="Used for this run only: the values are not stored."
        />
        <div className="inline-form">
          <button type="submit" className="btn primary" disabled={run.isPending}>
            Run
          </button>
          {run.isPending && <Spinner label={`Running ${action.name}`} showLabel />}
        </div>
      </form>
      <ErrorNote error={run.error} title="Could not run the action" />
      {run.data && <ActionResultView result={run.data} />}
    </section>
  );
}

export function ActionResultView({ result }: { result: ActionResult }) {
  const exportNames = Object.keys(result.exports);
  return (
    <div className="action-result" aria-labelledby="action-result-title">
      <h3 id="action-result-title">
        Result <span className="muted">· {result.duration_ms} ms</span>
      </h3>
      <div role="status">
        {result.error ? (
          <div className="error-note">
            <div className="error-text">
              <strong>The action failed: {result.error.name}</strong>
              <span>{result.error.message}</span>
            </div>
          </div>
        ) : result.exit != null ? (
          <p>Ended early: {result.exit}</p>
        ) : (
          <p className="action-summary">{result.summary ?? "Done (no summary)."}</p>
        )}
      </div>
      <h4>Return value</h4>
      {result.ret === undefined ? (
        <p className="muted">Nothing returned.</p>
      ) : (
        <JsonTree value={result.ret} label="Return value" />
      )}
      {exportNames.length > 0 && (
        <>
          <h4>Exports</h4>
          <JsonTree value={result.exports} label="Exports" />
        </>
      )}
      <h4>Logs</h4>
      {result.logs.length === 0 ? (
        <p className="muted">No logs.</p>
      ) : (
        <pre className="action-logs" tabIndex={0} aria-label="Logs">
          {result.logs.map((l) => `[${l.level}] ${l.message}`).join("\n")}
        </pre>
      )}
    </div>
  );
}
