/** Saves a component from code (in the editor) or from a URL. */
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import type { Component } from "../../../shared/resources/index.js";
import { call } from "../../state/bridge.js";
import { keys } from "../../state/queries.js";
import { CodeEditor } from "../../ui/CodeEditor.js";
import { ErrorNote } from "../../ui/ErrorNote.js";
import { Modal } from "../../ui/Modal.js";
import { Spinner } from "../../ui/Spinner.js";
import { Tabs } from "../../ui/Tabs.js";
import { toast } from "../../ui/Toasts.js";
import { EXAMPLE_COMPONENT } from "../sources/ComponentPicker.js";

export function CreateComponentDialog(props: { onClose: () => void; onCreated: (c: Component) => void }) {
  const qc = useQueryClient();
  const [mode, setMode] = useState<"code" | "url">("code");
  const [code, setCode] = useState(EXAMPLE_COMPONENT);
  const [url, setUrl] = useState("");
  const create = useMutation({
    mutationFn: () =>
      call("createComponent", mode === "code" ? { component_code: code } : { component_url: url.trim() }),
    onSuccess: (c) => {
      qc.setQueryData(keys.component(c.id), c);
      void qc.invalidateQueries({ queryKey: ["components"] });
      toast(`Saved ${c.name}`);
      props.onCreated(c);
    },
  });
  const ready = mode === "code" ? code.trim().length > 0 : /^https?:\/\/\S+$/.test(url.trim());
  return (
    <Modal
      title="New component"
      onClose={props.onClose}
      busy={create.isPending}
      wide
      footer={
        <>
          {create.isPending && (
            <Spinner
              label={mode === "url" ? "Fetching and saving the component" : "Saving the component"}
              showLabel
            />
          )}
          <button type="button" className="btn" onClick={props.onClose} disabled={create.isPending}>
            Cancel
          </button>
          <button
            type="submit"
            form="create-component-form"
            className="btn primary"
            disabled={create.isPending || !ready}
          >
            Save component
          </button>
        </>
      }
    >
      <form
        id="create-component-form"
        onSubmit={(e) => {
          e.preventDefault();
          if (ready) create.mutate();
        }}
      >
        <Tabs
          label="Create from"
          tabs={[
            { id: "code", label: "Code" },
            { id: "url", label: "URL" },
          ]}
          value={mode}
          onChange={setMode}
        />
        {mode === "code" ? (
          <CodeEditor label="Component code" value={code} onChange={setCode} minHeight={300} />
        ) : (
          <div className="field">
            <label htmlFor="component-url">Component URL</label>
            <input
              id="component-url"
              type="url"
              value={url}
              placeholder="https://github.com/owner/repo/blob/main/source.mjs"
              onChange={(e) => setUrl(e.target.value)}
            />
            <div className="hint">
              A GitHub file URL is read as its raw file; relative imports are fetched beside it.
            </div>
          </div>
        )}
        <ErrorNote error={create.error} title="Could not save the component" />
      </form>
    </Modal>
  );
}
