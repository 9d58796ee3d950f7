/**
 * One step in the builder: its name, its place (move up or down), delete, and its code or action;
 * `test` places its Test button, its test result and its editor's completions (test/).
 */
import type { KeyboardEvent } from "react";
import type { PropDescriptor, StepProblem } from "../../../../shared/resources/index.js";
import { CodeEditor } from "../../../ui/CodeEditor.js";
import { JsonTree } from "../../../ui/JsonTree.js";
import type { EditStep } from "./draftModel.js";
import { StepPropsSection } from "./StepProps.js";
import type { StepTestView } from "./test/useBuilderTests.js";

export function StepCard(props: {
  step: EditStep;
  index: number;
  count: number;
  earlierSteps: string[];
  nameError: string | null;
  problems: StepProblem[];
  /** The props a code step's code declares (the draft's `step_props`), when the server has read them. */
  declared?: readonly PropDescriptor[] | undefined;
  onChange: (s: EditStep) => void;
  onMove: (by: -1 | 1) => void;
  onDelete: () => void;
  onEditProps: () => void;
  test?: StepTestView;
}) {
  const { step: s, index, count, earlierSteps, nameError, problems } = props;
  // A prop's problem is shown at its field (StepProps.tsx), not in the code.
  const codeProblems = problems.filter((p) => p.prop === undefined);
  const nameId = `step-name-${s.key}`;
  // Alt+ArrowUp / Alt+ArrowDown anywhere in the step's header move it, as the buttons do.
  const onKeyDown = (e: KeyboardEvent) => {
    if (!e.altKey || (e.key !== "ArrowUp" && e.key !== "ArrowDown")) return;
    e.preventDefault();
    props.onMove(e.key === "ArrowUp" ? -1 : 1);
  };
  return (
    <section className="builder-step" aria-labelledby={`${nameId}-title`} data-step={s.name}>
      <div className="builder-step-head" onKeyDown={onKeyDown}>
        <h3 id={`${nameId}-title`} className="builder-step-title">
          <span className="muted">{index + 1}.</span> {s.action ? "Action step" : "Code step"}{" "}
          <span className="sr-only">{s.name}</span>
        </h3>
        <label className="builder-step-name">
          <span className="sr-only">Name of step {index + 1}</span>
          <input
            id={nameId}
            value={s.name}
            spellCheck={false}
            aria-invalid={nameError ? true : undefined}
            aria-describedby={nameError ? `${nameId}-error` : undefined}
            onChange={(e) => props.onChange({ ...s, name: e.target.value })}
          />
        </label>
        <span className="spacer" />
        {props.test?.headActions}
        <button
          type="button"
          className="btn small"
          id={`move-up-${s.key}`}
          aria-label={`Move step ${s.name} up`}
          title="Move up (Alt+↑)"
          disabled={index === 0}
          onClick={() => props.onMove(-1)}
        >
          ↑
        </button>
        <button
          type="button"
          className="btn small"
          id={`move-down-${s.key}`}
          aria-label={`Move step ${s.name} down`}
          title="Move down (Alt+↓)"
          disabled={index === count - 1}
          onClick={() => props.onMove(1)}
        >
          ↓
        </button>
        <button type="button" className="btn small danger" aria-label={`Delete step ${s.name}`} onClick={props.onDelete}>
          Delete
        </button>
      </div>
      {nameError && (
        <p id={`${nameId}-error`} className="field-error" role="alert">
          {nameError} Not saved until it is fixed.
        </p>
      )}
      {s.action ? (
        <div className="action-step">
          <p>
            Runs the action <code>{s.action}</code>{" "}
            <button type="button" className="btn small" onClick={props.onEditProps} aria-label={`Edit props of step ${s.name}`}>
              Edit props
            </button>
          </p>
          {s.props && Object.keys(s.props).length > 0 ? (
            <JsonTree value={s.props} label={`Props of step ${s.name}`} />
          ) : (
            <p className="muted">No props.</p>
          )}
        </div>
      ) : (
        <CodeEditor
          label={`Code of step ${s.name}`}
          value={s.code}
          onChange={(code) => props.onChange({ ...s, code })}
          earlierSteps={earlierSteps}
          problems={codeProblems}
          stepValues={props.test?.stepValues}
          onRun={props.test?.onRun}
          minHeight={120}
        />
      )}
      {!s.action && (
        <StepPropsSection
          step={s.name}
          declared={props.declared}
          configured={s.configured_props ?? {}}
          problems={problems}
          onChange={(configured) => {
            const { configured_props: _old, ...rest } = s;
            props.onChange(Object.keys(configured).length > 0 ? { ...rest, configured_props: configured } : rest);
          }}
        />
      )}
      {codeProblems.length > 0 && (
        <ul className="builder-problems" aria-label={`Problems of step ${s.name}`}>
          {codeProblems.map((p, i) => (
            <li key={i} className="field-error">
              {p.line !== null ? `Line ${p.line}${p.column !== null ? `, column ${p.column}` : ""}: ` : ""}
              {p.message}
            </li>
          ))}
        </ul>
      )}
      {props.test?.result}
    </section>
  );
}
