/**
 * Chooses the component a new source runs. It opens on the registry, searched as you type
 * (RegistrySearch.tsx), where a newcomer starts; or a saved one, one looked up by key (the account's,
 * else the registry's, as `POST /sources/` with `key` resolves it), one from the registry (which
 * also finds the vendor's components in their npm packages: `postgresql-new-row`), or pasted
 * code (saved first, so its props can be read). Reports the component and the reference to send
 * in `POST /sources/`.
 */
import { useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import type { Component } from "../../../shared/resources/index.js";
import { BridgeCallError, call } from "../../state/bridge.js";
import { useComponentsPage } from "../../state/queries.js";
import { CodeEditor } from "../../ui/CodeEditor.js";
import { ErrorNote } from "../../ui/ErrorNote.js";
import { Spinner } from "../../ui/Spinner.js";
import { Tabs } from "../../ui/Tabs.js";
import { RegistrySearch } from "./RegistrySearch.js";

export type ComponentRef = { component_id: string } | { key: string };
export interface PickedComponent {
  component: Component;
  ref: ComponentRef;
  from: string;
}

type Mode = "saved" | "key" | "registry" | "code";
const MODES = [
  { id: "registry", label: "Registry" },
  { id: "saved", label: "Saved" },
  { id: "key", label: "By key" },
  { id: "code", label: "Paste code" },
] as const;

export const EXAMPLE_COMPONENT = `export default {
  name: "Every 10 seconds",
  version: "0.0.1",
  props: {
    timer: { type: "$.interface.timer", default: { intervalSeconds: 10 } },
    greeting: { type: "string", label: "Greeting", default: "hello" },
  },
  async run(event) {
    this.$emit({ greeting: this.greeting, at: event.timestamp }, { summary: this.greeting });
  },
};
`;

export function ComponentPicker(props: { onPicked: (p: PickedComponent) => void; disabled?: boolean }) {
  const { onPicked, disabled } = props;
  const [mode, setMode] = useState<Mode>("registry");
  const [key, setKey] = useState("");
  const [code, setCode] = useState(EXAMPLE_COMPONENT);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const saved = useComponentsPage({ limit: 100 });
  const qc = useQueryClient();

  const run = async (what: string, fn: () => Promise<PickedComponent>) => {
    setBusy(true);
    setError(null);
    try {
      onPicked(await fn());
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
    void what;
  };

  const lookUp = (k = key.trim(), registryOnly = mode === "registry") =>
    run("lookup", async () => {
      if (registryOnly) {
        const c = await call("getRegistryComponent", k);
        return { component: c, ref: { key: c.key ?? k }, from: "registry" };
      }
      try {
        const c = await call("getComponent", k);
        return { component: c, ref: { component_id: c.id }, from: "key" };
      } catch (err) {
        // Not in the account: the registry's, as a source created with this key would get.
        if (!(err instanceof BridgeCallError) || err.status !== 404 || k.startsWith("sc_")) throw err;
        const c = await call("getRegistryComponent", k);
        return { component: c, ref: { key: c.key ?? k }, from: "registry" };
      }
    });

  return (
    <div className="picker">
      <Tabs label="Component from" tabs={MODES} value={mode} onChange={(m) => (setMode(m), setError(null))} />
      <div className="picker-body">
        {mode === "saved" && (
          <>
            <ErrorNote
              error={saved.error}
              title="Could not list your components"
              onRetry={() => void saved.refetch()}
            />
            {saved.isPending && <Spinner label="Loading components" showLabel />}
            {saved.data && saved.data.data.length === 0 && (
              <p className="muted">No saved components yet: use a key, the registry, or paste code.</p>
            )}
            <ul className="pick-list" aria-label="Saved components">
              {saved.data?.data.map((c) => (
                <li key={c.id}>
                  <button
                    type="button"
                    className="pick"
                    disabled={disabled}
                    onClick={() => onPicked({ component: c, ref: { component_id: c.id }, from: "saved" })}
                  >
                    <strong>{c.name}</strong>
                    <span className="muted">
                      {c.key ?? c.id} · v{c.version}
                    </span>
                  </button>
                </li>
              ))}
            </ul>
          </>
        )}
        {mode === "registry" && (
          <RegistrySearch
            disabled={busy || disabled}
            // A key picked from the list is the registry's; text typed and looked up is taken as
            // "By key" takes it (the account's component with that key first).
            onLookUp={(k, typed) => lookUp(k, !typed)}
            lookupError={error}
          />
        )}
        {mode === "key" && (
          <form
            className="inline-form"
            onSubmit={(e) => {
              e.preventDefault();
              if (key.trim()) void lookUp();
            }}
          >
            <label htmlFor="component-key">Component key or id</label>
            <input
              id="component-key"
              value={key}
              onChange={(e) => setKey(e.target.value)}
              placeholder="my-component, http-new-requests or sc_…"
              disabled={busy || disabled}
            />
            <button type="submit" className="btn primary" disabled={busy || disabled || !key.trim()}>
              Look up
            </button>
          </form>
        )}
        {mode === "code" && (
          <>
            <CodeEditor label="Component code" value={code} onChange={setCode} minHeight={200} />
            <div className="form-actions">
              <button
                type="button"
                className="btn primary"
                disabled={busy || disabled || !code.trim()}
                onClick={() =>
                  void run("code", async () => {
                    const c = await call("createComponent", { component_code: code });
                    // Saved: every list of components shows it now (the next picker's too).
                    void qc.invalidateQueries({ queryKey: ["components"] });
                    return { component: c, ref: { component_id: c.id }, from: "code" };
                  })
                }
              >
                Save code and continue
              </button>
            </div>
          </>
        )}
        {mode === "key" && (
          <p className="hint">
            A key no registry component has is looked up in the vendor's npm package for its app
            (<code>@pipedream/&lt;app&gt;</code>, under the vendor's licence); the first lookup installs it and
            can take a minute.
          </p>
        )}
        {busy && (
          <Spinner label={mode === "code" ? "Saving the component" : "Looking up the component"} showLabel />
        )}
        {mode !== "registry" && <ErrorNote error={error} />}
      </div>
    </div>
  );
}
