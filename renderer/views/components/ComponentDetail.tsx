/** One component: what it is, its props, its code, and publishing it to the registry. */
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { navigate } from "../../app/router.js";
import type { Component } from "../../../shared/resources/index.js";
import { call } from "../../state/bridge.js";
import { plainText } from "../../state/format.js";
import { Time } from "../../ui/Time.js";
import { keys } from "../../state/queries.js";
import { CodeEditor } from "../../ui/CodeEditor.js";
import { CopyButton } from "../../ui/CopyButton.js";
import { ErrorNote } from "../../ui/ErrorNote.js";
import { Spinner } from "../../ui/Spinner.js";
import { toast } from "../../ui/Toasts.js";
import type { ComponentRef } from "../sources/ComponentPicker.js";
import { CreateSourceDialog } from "../sources/CreateSourceDialog.js";

/** Whether a component is an action (run as a step, not deployed as a source): its code says so. */
const isAction = (c: Component) => /\btype\s*:\s*["'`]action["'`]/.test(c.code);

/**
 * How a new source names this component: a published one with a key by its key (the registry's,
 * as anyone's sources name it; a component of another user is not the account's to name by id),
 * else by id (the account's own).
 */
export const sourceRefOf = (c: Component, fromRegistry: boolean): ComponentRef =>
  c.key && (fromRegistry || c.published) ? { key: c.key } : { component_id: c.id };

export function ComponentDetail({
  component: c,
  fromRegistry,
}: {
  component: Component;
  fromRegistry: boolean;
}) {
  const qc = useQueryClient();
  const [creatingSource, setCreatingSource] = useState(false);
  const publish = useMutation({
    mutationFn: () => call("publishComponent", c.id),
    onSuccess: (saved) => {
      qc.setQueryData(keys.component(c.id), saved);
      void qc.invalidateQueries({ queryKey: ["components"] });
      toast(`Published ${saved.key ?? saved.name} to the registry`);
    },
  });
  return (
    <div className="component-detail page">
      <header>
        <div className="title-row">
          <h2 className="detail-title" title={c.name}>
            {c.name}
          </h2>
          <span className="chip">v{c.version}</span>
          {c.published && <span className="chip ok">published</span>}
          {fromRegistry && <span className="chip">registry</span>}
          <span className="spacer" />
          {!isAction(c) && (
            <button type="button" className="btn small primary" onClick={() => setCreatingSource(true)}>
              Create source
            </button>
          )}
          {!fromRegistry && !c.published && (
            <button
              type="button"
              className="btn small"
              onClick={() => publish.mutate()}
              disabled={publish.isPending || !c.key}
              title={
                c.key
                  ? "Make it available to every user by its key"
                  : "Only a component with a key can be published"
              }
            >
              Publish to registry
            </button>
          )}
          {!fromRegistry && !c.published && !c.key && (
            <span className="muted small">Add a key to the code to publish it.</span>
          )}
          {publish.isPending && <Spinner label="Publishing" />}
        </div>
        <ErrorNote error={publish.error} title="Could not publish" onDismiss={() => publish.reset()} />
        {c.description && <p>{plainText(c.description)}</p>}
        {creatingSource && (
          <CreateSourceDialog
            initial={{ component: c, ref: sourceRefOf(c, fromRegistry), from: fromRegistry ? "registry" : "saved" }}
            onClose={() => setCreatingSource(false)}
            onCreated={(s) => {
              setCreatingSource(false);
              void qc.invalidateQueries({ queryKey: ["sources"] });
              navigate("sources", s.id);
            }}
          />
        )}
        <dl className="meta grid2">
          <dt>ID</dt>
          <dd>
            <code>{c.id}</code>
          </dd>
          <dt>Key</dt>
          <dd>{c.key ? <code>{c.key}</code> : <span className="muted">none</span>}</dd>
          <dt>Code hash</dt>
          <dd>
            <code className="hash">{c.code_hash}</code>
          </dd>
          {c.component_url && (
            <>
              <dt>URL</dt>
              <dd>
                <code>{c.component_url}</code>
              </dd>
            </>
          )}
          <dt>Updated</dt>
          <dd><Time ms={c.updated_at * 1000} /></dd>
        </dl>
      </header>
      <h3>Props</h3>
      {c.configurable_props.length === 0 ? (
        <p className="muted">No configurable props.</p>
      ) : (
        <table className="props-table">
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">Type</th>
              <th scope="col">Label / description</th>
              <th scope="col">Default</th>
            </tr>
          </thead>
          <tbody>
            {c.configurable_props.map((p) => (
              <tr key={p.name}>
                <td>
                  <code>{p.name}</code>
                  {p.optional && <span className="muted"> optional</span>}
                  {p.secret && <span className="muted"> secret</span>}
                </td>
                <td>
                  <code>{p.type}</code>
                  {p.app && <span className="muted"> ({p.app})</span>}
                </td>
                <td>
                  {p.label ?? ""}
                  {p.description && <div className="muted">{p.description}</div>}
                </td>
                <td>
                  {p.default === undefined ? (
                    ""
                  ) : (
                    <code>{p.secret ? "••••" : JSON.stringify(p.default)}</code>
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <div className="section-head">
        <h3>Code</h3>
        <CopyButton text={c.code} label="Copy component code" />
      </div>
      <CodeEditor label="Component code (read only)" value={c.code} readOnly minHeight={160} />
    </div>
  );
}
