/**
 * A workflow's execution controls (decisions.md "Execution controls"): retries, concurrency and
 * throttle, each with its range and what it does. Nothing is saved until "Save controls", which
 * sends only what changed; a value out of range is said next to its field before anything is
 * sent, and a 400's details go next to the fields they name. A server whose workflows have no
 * controls (the hosted service) gets a sentence saying so instead of the form.
 */
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useRef, useState, type FormEvent, type ReactNode } from "react";
import type { Workflow } from "../../../shared/resources/index.js";
import { BridgeCallError, call } from "../../state/bridge.js";
import { keys } from "../../state/queries.js";
import { ErrorNote } from "../../ui/ErrorNote.js";
import { toast } from "../../ui/Toasts.js";
import {
  changes,
  detailsByField,
  offeredControls,
  RANGES,
  rangeText,
  savedValues,
  type ControlField,
  type ControlsBody,
  type Edits,
  type ErrorSlot,
} from "./controlsForm.js";

type Errors = Partial<Record<ErrorSlot, string>>;

export function ExecutionControls({ workflow: w }: { workflow: Workflow }) {
  const qc = useQueryClient();
  const [edits, setEdits] = useState<Edits>({ fields: {} });
  const [errors, setErrors] = useState<Errors>({});
  const formRef = useRef<HTMLFormElement>(null);
  const offered = offeredControls(w);
  const save = useMutation({
    mutationFn: (body: ControlsBody) => call("updateWorkflow", w.id, body),
    onSuccess: (saved) => {
      qc.setQueryData(keys.workflow(w.id), saved);
      void qc.invalidateQueries({ queryKey: ["workflows"] });
      setEdits({ fields: {} });
      setErrors({});
      toast("Execution controls saved");
    },
    onError: (err) => {
      if (err instanceof BridgeCallError && err.details?.length)
        setErrors(detailsByField(err.details).byField);
    },
  });

  if (!offered.retry && !offered.concurrency && !offered.throttle) {
    return (
      <section aria-labelledby={`controls-${w.id}`} className="form-section">
        <h3 id={`controls-${w.id}`}>Execution controls</h3>
        <p className="muted">
          This server does not offer execution controls: retries, concurrency and throttling cannot be set for
          its workflows.
        </p>
      </section>
    );
  }

  const saved = savedValues(w);
  const pending = changes(w, edits);
  const dirty = Object.keys(pending.body).length > 0 || Object.keys(pending.errors).length > 0;
  const throttleOn = edits.throttleOn ?? (w.throttle !== null && w.throttle !== undefined);
  const id = (key: string) => `${key}-${w.id}`;

  const edit = (key: ControlField, text: string) => {
    setEdits((e) => ({ ...e, fields: { ...e.fields, [key]: text } }));
    setErrors(({ [key]: _gone, ...rest }) => rest);
  };
  const onSubmit = (e: FormEvent) => {
    e.preventDefault();
    if (Object.keys(pending.errors).length > 0) {
      setErrors(pending.errors);
      // Take the keyboard to the first field to fix (the form's order, not the errors').
      requestAnimationFrame(() =>
        formRef.current?.querySelector<HTMLInputElement>("[aria-invalid=true]")?.focus(),
      );
      return;
    }
    save.reset();
    save.mutate(pending.body);
  };
  const field = (key: ControlField, label: string, hint: ReactNode) => (
    <NumberField
      id={id(key)}
      fieldKey={key}
      label={label}
      hint={hint}
      value={edits.fields[key] ?? saved[key]}
      error={errors[key]}
      disabled={save.isPending}
      onChange={(text) => edit(key, text)}
    />
  );
  const serverRest =
    save.error instanceof BridgeCallError && save.error.details?.length
      ? new BridgeCallError({ ...save.error, details: detailsByField(save.error.details).rest })
      : save.error;

  return (
    <form
      ref={formRef}
      className="form-section controls-form"
      noValidate
      onSubmit={onSubmit}
      aria-labelledby={id("controls")}
    >
      <h3 id={id("controls")}>Execution controls</h3>
      <p className="muted">
        How this workflow&apos;s runs are retried, how many run at once, and how often they start. The server
        keeps them with the workflow: they hold across its restarts and on every instance that shares its
        database.
      </p>

      {offered.retry && (
        <fieldset>
          <legend>Retries</legend>
          <p className="hint">
            A run whose step throws is tried again from that step (the steps before it are reused, not run
            again) after a delay that doubles with each attempt, give or take 20 %, up to the longest delay.
            Meanwhile it is <em>retrying</em>; a retry that waits survives a restart. The $errors event is
            emitted once, when the last attempt fails.
          </p>
          {field(
            "max_attempts",
            "Attempts per run",
            <>
              {rangeText("max_attempts")}, counting the first. 1: a failed run is not retried; 3: it is tried
              up to 3 times (2 retries).
            </>,
          )}
          {field(
            "initial_delay_seconds",
            "First retry after (seconds)",
            <>{rangeText("initial_delay_seconds")} s.</>,
          )}
          {field(
            "max_delay_seconds",
            "Longest delay between attempts (seconds)",
            <>{rangeText("max_delay_seconds")} s (a day). The doubling delay stops growing here.</>,
          )}
        </fieldset>
      )}

      {offered.concurrency && (
        <fieldset>
          <legend>Concurrency</legend>
          {field(
            "concurrency",
            "Runs at once",
            <>
              {rangeText("concurrency")}. At 1, runs go one at a time, in the order their events arrived.
              Above 1, up to that many run together (counted across every instance of the server) and their
              order is not kept.
            </>,
          )}
        </fieldset>
      )}

      {offered.throttle && (
        <fieldset>
          <legend>Throttle</legend>
          <div className="field">
            <label className="checkbox">
              <input
                type="checkbox"
                checked={throttleOn}
                disabled={save.isPending}
                aria-describedby={id("throttle-hint")}
                onChange={(e) => {
                  setEdits((x) => ({ ...x, throttleOn: e.target.checked }));
                  setErrors(
                    ({ throttle: _a, throttle_limit: _b, throttle_period_seconds: _c, ...rest }) => rest,
                  );
                }}
              />
              Limit how often runs start
            </label>
            <div className="hint" id={id("throttle-hint")}>
              At most so many runs start in any period; the others wait in the server&apos;s queue, in order,
              and start as the period allows. None is dropped, across restarts too. Off: runs start as soon as
              concurrency allows.
            </div>
            {errors.throttle && (
              <div className="field-error" role="alert">
                Throttle: {errors.throttle}
              </div>
            )}
          </div>
          {throttleOn && (
            <div className="controls-row">
              {field("throttle_limit", "Runs per period", <>{rangeText("throttle_limit")}.</>)}
              {field(
                "throttle_period_seconds",
                "Period (seconds)",
                <>{rangeText("throttle_period_seconds")} s.</>,
              )}
            </div>
          )}
        </fieldset>
      )}

      <div className="form-actions start">
        <button type="submit" className="btn primary" disabled={!dirty || save.isPending}>
          {save.isPending ? "Saving…" : "Save controls"}
        </button>
        <button
          type="button"
          className="btn"
          disabled={!dirty || save.isPending}
          onClick={() => {
            setEdits({ fields: {} });
            setErrors({});
            save.reset();
          }}
        >
          Discard changes
        </button>
        {!dirty && !save.isPending && <span className="muted small">No unsaved changes.</span>}
      </div>
      <ErrorNote error={serverRest} title="The controls were not saved" onDismiss={() => save.reset()} />
    </form>
  );
}

/** A labelled whole-number input: its range in the hint, its error (ours or the server's) beside it. */
function NumberField(props: {
  id: string;
  fieldKey: ControlField;
  label: string;
  hint: ReactNode;
  value: string;
  error: string | undefined;
  disabled: boolean;
  onChange: (text: string) => void;
}) {
  const { id, fieldKey, label, hint, value, error, disabled, onChange } = props;
  const r = RANGES[fieldKey];
  return (
    <div className={error ? "field invalid" : "field"}>
      <label htmlFor={id}>{label}</label>
      <input
        id={id}
        type="number"
        inputMode="numeric"
        min={r.min}
        max={r.max}
        step={1}
        value={value}
        disabled={disabled}
        aria-invalid={error ? true : undefined}
        aria-describedby={error ? `${id}-hint ${id}-error` : `${id}-hint`}
        onChange={(e) => onChange(e.target.value)}
      />
      <div className="hint" id={`${id}-hint`}>
        {hint}
      </div>
      {error && (
        <div className="field-error" role="alert" id={`${id}-error`}>
          {label}: {error}
        </div>
      )}
    </div>
  );
}
