/**
 * A code step's Props section in the builder (decisions.md "Code steps with props"): one field
 * per prop its code declares, as the server read them when the draft was saved (the draft's
 * `step_props`): an app prop chooses one of the user's connected accounts of that app, a string
 * is typed, an integer is a number, a boolean a checkbox, a data_store one of the user's data
 * stores. Each change goes into the step's
 * `configured_props`, saved with the rest of the draft; what the server finds wrong with a value
 * is shown at its field.
 */
import { useId } from "react";
import { accountIdOf, type PropDescriptor, type StepProblem } from "../../../../shared/resources/index.js";
import { AccountSelect } from "../../sources/PropExtras.js";
import { StoreSelect } from "../../data-stores/StoreSelect.js";

/** The value a field's input gives, in the step's configured props (undefined: left out). */
export function propValue(p: PropDescriptor, input: string | boolean): unknown {
  if (p.type === "app") return input === "" ? undefined : { authProvisionId: input };
  if (p.type === "boolean") return input === true;
  const text = String(input);
  if (text === "") return undefined;
  // An integer that is not one yet stays text: the server says what is wrong with it.
  if (p.type === "integer") return /^-?\d+$/.test(text.trim()) ? Number(text) : text;
  return text;
}

/** The configured props with one prop's value set (or left out). */
export function withProp(
  configured: Record<string, unknown>,
  name: string,
  value: unknown,
): Record<string, unknown> {
  const next = { ...configured };
  if (value === undefined) delete next[name];
  else next[name] = value;
  return next;
}

export function StepPropsSection(props: {
  step: string;
  /** The props its code declares; undefined while the server has not read them. */
  declared: readonly PropDescriptor[] | undefined;
  configured: Record<string, unknown>;
  problems: readonly StepProblem[];
  onChange: (configured: Record<string, unknown>) => void;
}) {
  const { step, declared, configured, problems } = props;
  const headingId = useId();
  if (!declared) {
    // Code that declares props before the draft was ever saved: they show once it is.
    if (Object.keys(configured).length === 0) return null;
    return <p className="muted">The props of step {step} show once the draft is saved.</p>;
  }
  // Values of props the code no longer declares keep the draft from deploying: shown, to remove.
  const stale = Object.keys(configured).filter((name) => !declared.some((p) => p.name === name));
  if (declared.length === 0 && stale.length === 0) return null;
  return (
    <section className="step-props" aria-labelledby={headingId}>
      <h4 id={headingId}>Props of step {step}</h4>
      {stale.map((name) => (
        <p key={name} className="field-error">
          {problems.find((x) => x.prop === name)?.message ?? `prop ${name}: not a prop of this step's code`}{" "}
          <button
            type="button"
            className="btn small"
            onClick={() => props.onChange(withProp(configured, name, undefined))}
          >
            Remove {name}
          </button>
        </p>
      ))}
      {declared.map((p) => (
        <PropInput
          key={p.name}
          p={p}
          value={configured[p.name]}
          problem={problems.find((x) => x.prop === p.name)?.message}
          onChange={(input) => props.onChange(withProp(configured, p.name, propValue(p, input)))}
        />
      ))}
    </section>
  );
}

function PropInput(props: {
  p: PropDescriptor;
  value: unknown;
  problem: string | undefined;
  onChange: (input: string | boolean) => void;
}) {
  const { p, value, problem, onChange } = props;
  const id = useId();
  const label = p.label ?? p.name;
  const errId = `${id}-err`;
  const descId = `${id}-desc`;
  const describedBy =
    [p.description ? descId : null, problem ? errId : null].filter(Boolean).join(" ") || undefined;
  const common = { id, "aria-invalid": problem ? true : undefined, "aria-describedby": describedBy };
  const text =
    value === undefined || value === null ? "" : typeof value === "string" ? value : JSON.stringify(value);
  const optional = p.optional || p.default !== undefined;
  let input;
  if (p.type === "app")
    input = (
      <AccountSelect
        p={p}
        accountId={accountIdOf(value) ?? ""}
        invalid={Boolean(problem)}
        describedBy={describedBy}
        noAccountHint="add one under Connected accounts."
        onChange={onChange}
      />
    );
  else if (p.type === "data_store")
    input = (
      <StoreSelect
        id={id}
        storeId={typeof value === "string" ? value : ""}
        invalid={Boolean(problem)}
        describedBy={describedBy}
        onChange={onChange}
      />
    );
  else if (p.type === "boolean")
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
  else
    input = (
      <input
        {...common}
        type={p.type === "integer" ? "number" : "text"}
        min={p.type === "integer" ? p.min : undefined}
        max={p.type === "integer" ? p.max : undefined}
        placeholder={p.default !== undefined ? `default: ${String(p.default)}` : undefined}
        value={text}
        onChange={(e) => onChange(e.target.value)}
      />
    );
  return (
    <div className={problem ? "field invalid" : "field"} data-prop={p.name}>
      {p.type !== "boolean" && (
        <label htmlFor={p.type === "app" ? undefined : id}>
          {label}
          {p.type === "app" && p.app ? <span className="muted"> · app {p.app}</span> : null}
          {optional ? <span className="muted"> (optional)</span> : null}
        </label>
      )}
      {input}
      {p.description && (
        <div id={descId} className="hint">
          {p.description}
        </div>
      )}
      {problem && (
        <div id={errId} className="field-error">
          {problem}
        </div>
      )}
    </div>
  );
}
