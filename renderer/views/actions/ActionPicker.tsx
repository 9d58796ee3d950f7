/**
 * Finding an action: an app (as components name it: `helper_functions`, `postgresql`), an
 * optional search, and the matching actions as a list to choose from. The account's own actions
 * are listed first, whatever the app.
 */
import { useQuery } from "@tanstack/react-query";
import { useEffect, useId, useState } from "react";
import type { Action } from "../../../shared/resources/index.js";
import { call } from "../../state/bridge.js";
import { plainText } from "../../state/format.js";
import { ErrorNote } from "../../ui/ErrorNote.js";
import { Spinner } from "../../ui/Spinner.js";

function useDebounced<T>(value: T, ms: number): T {
  const [v, setV] = useState(value);
  useEffect(() => {
    const t = setTimeout(() => setV(value), ms);
    return () => clearTimeout(t);
  }, [value, ms]);
  return v;
}

export function ActionPicker(props: {
  selectedKey: string | null;
  onPick: (action: Action) => void;
  initialApp?: string;
}) {
  const id = useId();
  const [app, setApp] = useState(props.initialApp ?? "");
  const [q, setQ] = useState("");
  const query = { app: useDebounced(app.trim(), 400), q: useDebounced(q.trim(), 300) };
  const actions = useQuery({
    queryKey: ["actions", query.app, query.q] as const,
    queryFn: () =>
      call("listActions", { ...(query.app ? { app: query.app } : {}), ...(query.q ? { q: query.q } : {}) }),
    staleTime: 60_000,
  });
  const list = actions.data ?? [];
  return (
    <div className="action-picker">
      <div className="inline-form">
        <label htmlFor={`${id}-app`}>App</label>
        <input
          id={`${id}-app`}
          value={app}
          placeholder="helper_functions"
          autoComplete="off"
          spellCheck={false}
          onChange={(e) => setApp(e.target.value)}
        />
        <label htmlFor={`${id}-q`}>Search actions</label>
        <input id={`${id}-q`} type="search" value={q} onChange={(e) => setQ(e.target.value)} />
        {actions.isFetching && <Spinner label="Loading the actions" />}
      </div>
      <p className="hint">
        An app&apos;s actions come from its vendor package, installed by the server on first use (the first
        answer may take a while). Without an app, only your own actions are listed.
      </p>
      <ErrorNote
        error={actions.error}
        title="Could not list the actions"
        onRetry={() => void actions.refetch()}
      />
      {actions.data && list.length === 0 && (
        <p className="muted">
          {query.app ? `No actions of ${query.app} match.` : "No actions of your own: name an app."}
        </p>
      )}
      {list.length > 0 && (
        <ul className="action-list" aria-label="Actions">
          {list.map((a) => (
            <li key={a.component_id ?? a.key}>
              <button
                type="button"
                className={a.key === props.selectedKey ? "action-item selected" : "action-item"}
                aria-pressed={a.key === props.selectedKey}
                onClick={() => props.onPick(a)}
              >
                <strong>{a.name}</strong> <code className="muted">{a.key}</code>
                {a.component_id ? <span className="muted"> · yours</span> : null}
                {a.description ? <span className="action-desc">{firstLine(a.description)}</span> : null}
              </button>
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}

/** The description's first line in plain words (descriptions are markdown: `[See the docs](url)`). */
const firstLine = (s: string) => {
  const line = plainText(s.split("\n")[0] ?? "");
  return line.length > 160 ? `${line.slice(0, 157)}…` : line;
};
