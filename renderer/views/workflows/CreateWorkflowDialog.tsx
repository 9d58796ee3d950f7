/** New workflow: a name and one or more steps, each code or an action with its props. */
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import type { Workflow } from "../../../shared/resources/index.js";
import { CreateWorkflowBody } from "../../../shared/resources/index.js";
import { call } from "../../state/bridge.js";
import { keys } from "../../state/queries.js";
import { CodeEditor } from "../../ui/CodeEditor.js";
import { ErrorNote } from "../../ui/ErrorNote.js";
import { Modal } from "../../ui/Modal.js";
import { Spinner } from "../../ui/Spinner.js";
import { toast } from "../../ui/Toasts.js";
import { ActionStepFields, emptyActionStep, type ActionStepDraft } from "../actions/ActionStepFields.js";
import { actionDescriptors, buildStepProps } from "../actions/actionForm.js";

const STEP_TEMPLATE = `export default defineComponent({
  async run({ steps, $ }) {
    const event = steps.trigger.event;
    $.send.emit({ received: event });
    return event;
  },
});
`;

interface StepDraft {
  key: number;
  name: string;
  code: string;
  /** A step that runs an action (instead of code). */
  action?: ActionStepDraft;
}

export function CreateWorkflowDialog(props: { onClose: () => void; onCreated: (w: Workflow) => void }) {
  const qc = useQueryClient();
  const [name, setName] = useState("");
  const [steps, setSteps] = useState<StepDraft[]>([{ key: 1, name: "step_1", code: STEP_TEMPLATE }]);
  const [invalid, setInvalid] = useState<string[]>([]);
  const create = useMutation({
    mutationFn: (body: CreateWorkflowBody) => call("createWorkflow", body),
    onSuccess: (w) => {
      qc.setQueryData(keys.workflow(w.id), w);
      void qc.invalidateQueries({ queryKey: ["workflows"] });
      toast(`Created ${w.name}`);
      props.onCreated(w);
    },
  });
  const submit = () => {
    const problems: string[] = [];
    const stepBodies = steps.map((s, i) => {
      if (!s.action) return { name: s.name.trim() || undefined, code: s.code };
      const a = s.action.action;
      if (!a) {
        problems.push(`step ${i + 1}: choose an action`);
        return { name: s.name.trim() || undefined, code: "" };
      }
      const built = buildStepProps(actionDescriptors(a), s.action.state);
      update(s.key, { action: { ...s.action, errors: built.ok ? {} : built.errors } });
      if (!built.ok) problems.push(`step ${i + 1}: some props are not valid`);
      return {
        name: s.name.trim() || undefined,
        action: a.component_id ?? a.key,
        props: built.ok ? built.value : {},
      };
    });
    if (problems.length > 0) return setInvalid(problems);
    const body = { name: name.trim(), steps: stepBodies };
    const parsed = CreateWorkflowBody.safeParse(body);
    if (!parsed.success) {
      return setInvalid(parsed.error.issues.map((i) => `${i.path.join(".") || "workflow"}: ${i.message}`));
    }
    setInvalid([]);
    create.mutate(parsed.data);
  };
  const update = (key: number, patch: Partial<StepDraft>) =>
    setSteps((l) => l.map((s) => (s.key === key ? { ...s, ...patch } : s)));
  return (
    <Modal
      title="New workflow"
      onClose={props.onClose}
      busy={create.isPending}
      wide
      footer={
        <>
          {create.isPending && <Spinner label="Creating the workflow" showLabel />}
          <button type="button" className="btn" onClick={props.onClose} disabled={create.isPending}>
            Cancel
          </button>
          <button
            type="submit"
            form="create-workflow-form"
            className="btn primary"
            disabled={create.isPending}
          >
            Create workflow
          </button>
        </>
      }
    >
      <form
        id="create-workflow-form"
        onSubmit={(e) => {
          e.preventDefault();
          submit();
        }}
      >
        <div className="field">
          <label htmlFor="workflow-name">Name</label>
          <input
            id="workflow-name"
            value={name}
            onChange={(e) => setName(e.target.value)}
            placeholder="My workflow"
          />
        </div>
        {steps.map((s, i) => (
          <fieldset key={s.key} className="step-draft">
            <legend>
              Step {i + 1}
              {s.action ? " (action)" : ""}
            </legend>
            <div className="inline-form">
              <label htmlFor={`step-name-${s.key}`}>Name</label>
              <input
                id={`step-name-${s.key}`}
                value={s.name}
                onChange={(e) => update(s.key, { name: e.target.value })}
              />
              {steps.length > 1 && (
                <button
                  type="button"
                  className="btn small"
                  onClick={() => setSteps((l) => l.filter((x) => x.key !== s.key))}
                >
                  Remove step
                </button>
              )}
            </div>
            {s.action ? (
              <ActionStepFields
                value={s.action}
                onChange={(action) => update(s.key, { action })}
                disabled={create.isPending}
              />
            ) : (
              <CodeEditor
                label={`Code of step ${i + 1}`}
                value={s.code}
                onChange={(code) => update(s.key, { code })}
                minHeight={150}
              />
            )}
          </fieldset>
        ))}
        <button
          type="button"
          className="btn small"
          onClick={() =>
            setSteps((l) => [...l, { key: Date.now(), name: `step_${l.length + 1}`, code: STEP_TEMPLATE }])
          }
        >
          + Add step
        </button>{" "}
        <button
          type="button"
          className="btn small"
          onClick={() =>
            setSteps((l) => [
              ...l,
              { key: Date.now(), name: `step_${l.length + 1}`, code: "", action: emptyActionStep() },
            ])
          }
        >
          + Add step from an action
        </button>
        {invalid.length > 0 && (
          <div role="alert" className="error-note">
            <div className="error-text">
              <strong>Some values are not valid</strong>
              <ul>
                {invalid.map((m) => (
                  <li key={m}>{m}</li>
                ))}
              </ul>
            </div>
          </div>
        )}
        <ErrorNote error={create.error} title="Could not create the workflow" />
      </form>
    </Modal>
  );
}
