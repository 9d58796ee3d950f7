/** Adds a step that runs an action to a saved workflow (its other steps are sent back as they are). */
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import type { Workflow } from "../../../shared/resources/index.js";
import { call } from "../../state/bridge.js";
import { keys } from "../../state/queries.js";
import { ErrorNote } from "../../ui/ErrorNote.js";
import { Modal } from "../../ui/Modal.js";
import { Spinner } from "../../ui/Spinner.js";
import { toast } from "../../ui/Toasts.js";
import { ActionStepFields, emptyActionStep } from "../actions/ActionStepFields.js";
import { actionDescriptors, buildStepProps } from "../actions/actionForm.js";

const STEP_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** A saved step as the update body takes it: an action step by its action and props, else its code. */
export const stepInput = (s: Workflow["steps"][number]) =>
  s.action ? { name: s.name, action: s.action, props: s.props ?? {} } : { name: s.name, code: s.code };

export function AddActionStepDialog(props: { workflow: Workflow; onClose: () => void }) {
  const { workflow: w, onClose } = props;
  const qc = useQueryClient();
  const [name, setName] = useState(`step_${w.steps.length + 1}`);
  const [draft, setDraft] = useState(emptyActionStep);
  const [problem, setProblem] = useState<string | null>(null);
  const save = useMutation({
    mutationFn: (step: { name: string; action: string; props: Record<string, unknown> }) =>
      call("updateWorkflow", w.id, { steps: [...w.steps.map(stepInput), step] }),
    onSuccess: (saved) => {
      qc.setQueryData(keys.workflow(w.id), saved);
      void qc.invalidateQueries({ queryKey: ["workflows"] });
      toast(`Added step ${name.trim()}`);
      onClose();
    },
  });
  const submit = () => {
    const a = draft.action;
    if (!STEP_NAME.test(name.trim()))
      return setProblem("The step's name must be an identifier (letters, digits, _).");
    if (w.steps.some((s) => s.name === name.trim()))
      return setProblem(`There is already a step named ${name.trim()}.`);
    if (!a) return setProblem("Choose an action.");
    const built = buildStepProps(actionDescriptors(a), draft.state);
    setDraft({ ...draft, errors: built.ok ? {} : built.errors });
    if (!built.ok) return setProblem("Some props are not valid.");
    setProblem(null);
    save.mutate({ name: name.trim(), action: a.component_id ?? a.key, props: built.value });
  };
  return (
    <Modal
      title="Add step from an action"
      onClose={onClose}
      busy={save.isPending}
      wide
      footer={
        <>
          {save.isPending && <Spinner label="Saving the workflow" showLabel />}
          <button type="button" className="btn" onClick={onClose} disabled={save.isPending}>
            Cancel
          </button>
          <button type="submit" form="add-action-step-form" className="btn primary" disabled={save.isPending}>
            Add step
          </button>
        </>
      }
    >
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
        <ActionStepFields value={draft} onChange={setDraft} disabled={save.isPending} />
        {problem && (
          <p role="alert" className="field-error">
            {problem}
          </p>
        )}
        <ErrorNote error={save.error} title="Could not add the step" />
      </form>
    </Modal>
  );
}
