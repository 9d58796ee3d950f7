/**
 * A step that runs an action, for the builder's draft: added (a name, an action, its props) or
 * an existing one's action and props changed. Nothing is saved here; the builder saves its draft.
 */
import { useQuery } from "@tanstack/react-query";
import { useState } from "react";
import { call } from "../../state/bridge.js";
import { ErrorNote } from "../../ui/ErrorNote.js";
import { Modal } from "../../ui/Modal.js";
import { Loading } from "../../ui/Spinner.js";
import { initialState } from "../sources/propsForm.js";
import { ActionStepFields, emptyActionStep, type ActionStepDraft } from "../actions/ActionStepFields.js";
import { actionDescriptors, buildStepProps } from "../actions/actionForm.js";
import { STEP_NAME } from "./builder/draftModel.js";

export interface ActionStepValue {
  name: string;
  action: string;
  props: Record<string, unknown>;
}

export function AddActionStepDialog(props: {
  /** The names the workflow's other steps have. */
  takenNames: readonly string[];
  defaultName: string;
  /** The step being edited; without it, a new one. */
  editing?: ActionStepValue;
  onDone: (step: ActionStepValue) => void;
  onClose: () => void;
}) {
  const { editing, onClose } = props;
  // An edited step starts from its action as the server describes it, with its props filled in.
  const current = useQuery({
    queryKey: ["action", editing?.action ?? ""],
    queryFn: () => call("getAction", editing!.action),
    enabled: Boolean(editing),
  });
  const title = editing ? `Edit props of step ${editing.name}` : "Add step from an action";
  return (
    <Modal
      title={title}
      onClose={onClose}
      wide
      footer={
        <>
          <button type="button" className="btn" onClick={onClose}>
            Cancel
          </button>
          <button type="submit" form="add-action-step-form" className="btn primary">
            {editing ? "Apply" : "Add step"}
          </button>
        </>
      }
    >
      {editing && current.isPending ? (
        <Loading label="Loading the action" />
      ) : editing && current.error ? (
        <ErrorNote error={current.error} title="Could not load the step's action" />
      ) : (
        <ActionStepForm
          {...props}
          initial={
            editing && current.data
              ? {
                  action: current.data,
                  state: initialState(actionDescriptors(current.data), editing.props),
                  errors: {},
                }
              : emptyActionStep()
          }
        />
      )}
    </Modal>
  );
}

function ActionStepForm(props: {
  takenNames: readonly string[];
  defaultName: string;
  editing?: ActionStepValue;
  initial: ActionStepDraft;
  onDone: (step: ActionStepValue) => void;
  onClose: () => void;
}) {
  const { takenNames, editing, onDone, onClose } = props;
  const [name, setName] = useState(editing?.name ?? props.defaultName);
  const [draft, setDraft] = useState(props.initial);
  const [problem, setProblem] = useState<string | null>(null);
  const submit = () => {
    const a = draft.action;
    const n = name.trim();
    if (!STEP_NAME.test(n)) return setProblem("The step's name must be an identifier (letters, digits, _).");
    if (takenNames.includes(n)) return setProblem(`There is already a step named ${n}.`);
    if (!a) return setProblem("Choose an action.");
    const built = buildStepProps(actionDescriptors(a), draft.state);
    setDraft({ ...draft, errors: built.ok ? {} : built.errors });
    if (!built.ok) return setProblem("Some props are not valid.");
    onDone({ name: n, action: a.component_id ?? a.key, props: built.value });
    onClose();
  };
  return (
    <form
      id="add-action-step-form"
      onSubmit={(e) => {
        e.preventDefault();
        submit();
      }}
    >
      <div className="field">
        <label htmlFor="action-step-name">Step name</label>
        <input id="action-step-name" value={name} onChange={(e) => setName(e.target.value)} />
      </div>
      <ActionStepFields value={draft} onChange={setDraft} />
      {problem && (
        <p role="alert" className="field-error">
          {problem}
        </p>
      )}
    </form>
  );
}
