/** Naming a data store: a new one, or a new name for one. */
import { useMutation } from "@tanstack/react-query";
import { useState } from "react";
import { DATA_STORE_LIMITS, type DataStore } from "../../../shared/resources/index.js";
import { call } from "../../state/bridge.js";
import { ErrorNote } from "../../ui/ErrorNote.js";
import { Field } from "../../ui/Field.js";
import { Modal } from "../../ui/Modal.js";
import { Spinner } from "../../ui/Spinner.js";
import { toast } from "../../ui/Toasts.js";

/** `existing`: the store being renamed; absent: a new store. */
export function StoreNameDialog(props: {
  existing?: DataStore;
  onClose: () => void;
  onSaved: (s: DataStore) => void;
}) {
  const { existing, onClose, onSaved } = props;
  const [name, setName] = useState(existing?.name ?? "");
  const [error, setError] = useState<string | undefined>();
  const save = useMutation({
    mutationFn: (n: string) =>
      existing ? call("renameDataStore", existing.id, n) : call("createDataStore", n),
    onSuccess: (s) => {
      onSaved(s);
      toast(existing ? `Renamed to ${s.name}` : `Created ${s.name}`);
      onClose();
    },
  });
  const submit = () => {
    const n = name.trim();
    const problem =
      n === ""
        ? "enter a name"
        : n.length > DATA_STORE_LIMITS.nameLength
          ? `at most ${DATA_STORE_LIMITS.nameLength} characters`
          : undefined;
    setError(problem);
    if (!problem) save.mutate(n);
  };
  const title = existing ? `Rename ${existing.name}` : "New data store";
  const busy = save.isPending;
  return (
    <Modal
      title={title}
      onClose={onClose}
      busy={busy}
      footer={
        <>
          {busy && <Spinner label="Saving" />}
          <button type="button" className="btn" onClick={onClose} disabled={busy}>
            Cancel
          </button>
          <button type="submit" form="store-name-form" className="btn primary" disabled={busy}>
            {existing ? "Rename" : "Create store"}
          </button>
        </>
      }
    >
      <form
        id="store-name-form"
        aria-label={title}
        onSubmit={(e) => {
          e.preventDefault();
          submit();
        }}
      >
        <Field id="store-name" label="Name" error={error} hint="For you: code names a store by its id">
          <input
            id="store-name"
            value={name}
            onChange={(e) => setName(e.target.value)}
            autoComplete="off"
            disabled={busy}
            data-autofocus
          />
        </Field>
        <ErrorNote
          error={save.error}
          title={existing ? "Could not rename the store" : "Could not create the store"}
        />
      </form>
    </Modal>
  );
}
