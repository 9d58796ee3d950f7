/** New source: pick a component, fill in the form generated from its props, create. */
import { useState } from "react";
import type { Source } from "../../../shared/resources/index.js";
import { useCreateSource } from "../../state/queries.js";
import { ErrorNote } from "../../ui/ErrorNote.js";
import { Modal } from "../../ui/Modal.js";
import { Spinner } from "../../ui/Spinner.js";
import { toast } from "../../ui/Toasts.js";
import { ComponentPicker, type PickedComponent } from "./ComponentPicker.js";
import { PropsForm } from "./PropsForm.js";
import { buildConfiguredProps, initialState, type FormState } from "./propsForm.js";

export function CreateSourceDialog(props: {
  onClose: () => void;
  onCreated: (s: Source) => void;
  /** Start from this component (a component's page: "Create source"), its form open. */
  initial?: PickedComponent;
}) {
  const { onClose, onCreated, initial } = props;
  const [picked, setPicked] = useState<PickedComponent | null>(initial ?? null);
  const [name, setName] = useState("");
  const [form, setForm] = useState<FormState>(() => (initial ? initialState(initial.component.configurable_props) : {}));
  const [errors, setErrors] = useState<Record<string, string>>({});
  const create = useCreateSource();

  const pick = (p: PickedComponent) => {
    setPicked(p);
    setForm(initialState(p.component.configurable_props));
    setErrors({});
    create.reset();
  };

  const submit = () => {
    if (!picked) return;
    const built = buildConfiguredProps(picked.component.configurable_props, form);
    if (!built.ok) return setErrors(built.errors);
    setErrors({});
    create.mutate(
      { ...picked.ref, ...(name.trim() ? { name: name.trim() } : {}), configured_props: built.value },
      {
        onSuccess: (s) => {
          toast(`Created ${s.name}`);
          onCreated(s);
        },
      },
    );
  };

  return (
    <Modal
      title={picked ? `New source from ${picked.component.name}` : "New source: choose a component"}
      onClose={onClose}
      busy={create.isPending}
      wide
      footer={
        picked && (
          <>
            {create.isPending && <Spinner label="Creating the source" showLabel />}
            <button type="button" className="btn" onClick={() => setPicked(null)} disabled={create.isPending}>
              ← Other component
            </button>
            <button
              type="submit"
              form="create-source-form"
              className="btn primary"
              disabled={create.isPending}
            >
              Create source
            </button>
          </>
        )
      }
    >
      {!picked ? (
        <ComponentPicker onPicked={pick} />
      ) : (
        <form
          id="create-source-form"
          onSubmit={(e) => {
            e.preventDefault();
            submit();
          }}
        >
          <p className="muted">
            {picked.component.key ? <code>{picked.component.key}</code> : <code>{picked.component.id}</code>}{" "}
            · v{picked.component.version}
            {picked.component.description ? ` · ${picked.component.description}` : ""}
          </p>
          <div className="field">
            <label htmlFor="source-name">Name</label>
            <input
              id="source-name"
              value={name}
              placeholder={picked.component.name}
              onChange={(e) => setName(e.target.value)}
              disabled={create.isPending}
            />
            <div className="hint">Optional: defaults to the component's name.</div>
          </div>
          <h3 className="form-section">Props</h3>
          <PropsForm
            descriptors={picked.component.configurable_props}
            state={form}
            onChange={setForm}
            errors={errors}
            disabled={create.isPending}
            componentId={picked.component.id}
          />
          <ErrorNote error={create.error} title="Could not create the source" />
        </form>
      )}
    </Modal>
  );
}
