/**
 * A workflow step that runs an action: the action (found as in the Actions view) and its props,
 * whose values may be `{{ steps.trigger.event.body.x }}` references resolved when the step runs.
 */
import { useMemo } from "react";
import type { Action } from "../../../shared/resources/index.js";
import { PropsForm } from "../sources/PropsForm.js";
import { initialState, type FormState } from "../sources/propsForm.js";
import { ActionPicker } from "./ActionPicker.js";
import { actionChoices } from "./ActionsView.js";
import { actionDescriptors } from "./actionForm.js";

export interface ActionStepDraft {
  action: Action | null;
  state: FormState;
  errors: Record<string, string>;
}

export const emptyActionStep = (): ActionStepDraft => ({ action: null, state: {}, errors: {} });

export function ActionStepFields(props: {
  value: ActionStepDraft;
  onChange: (v: ActionStepDraft) => void;
  disabled?: boolean;
}) {
  const { value, onChange, disabled } = props;
  const descriptors = useMemo(() => (value.action ? actionDescriptors(value.action) : []), [value.action]);
  return (
    <div className="action-step">
      <ActionPicker
        selectedKey={value.action?.key ?? null}
        onPick={(a) => onChange({ action: a, state: initialState(actionDescriptors(a)), errors: {} })}
      />
      {value.action && (
        <div className="action-step-props">
          <p>
            <strong>{value.action.name}</strong> <code className="muted">{value.action.key}</code>
          </p>
          <p className="hint">
            A value may refer to the trigger or an earlier step, e.g.{" "}
            <code>{"{{steps.trigger.event.body.x}}"}</code>.
          </p>
          <PropsForm
            descriptors={descriptors}
            state={value.state}
            onChange={(state) => onChange({ ...value, state })}
            errors={value.errors}
            disabled={disabled}
            loadChoices={actionChoices(value.action)}
            references
            newAccountHint="Saved on the server as a connected account when the workflow is saved; the values are not shown again."
          />
        </div>
      )}
    </div>
  );
}
