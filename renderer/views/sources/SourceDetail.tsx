/**
 * One source: name (rename), active switch, endpoint URL with copy, delete with confirmation, and
 * two tabs: its live events, and its configuration (props edited with the generated form).
 */
import { useState } from "react";
import type { Source } from "../../../shared/resources/index.js";
import { redactConfiguredProps } from "../../../shared/secrets.js";
import { navigate } from "../../app/router.js";
import { errorLine } from "../../state/errors.js";
import { Time } from "../../ui/Time.js";
import {
  useComponent,
  useDeleteSource,
  useSetSourceActive,
  useSource,
  useUpdateSource,
} from "../../state/queries.js";
import { ConfirmDialog } from "../../ui/ConfirmDialog.js";
import { CopyButton } from "../../ui/CopyButton.js";
import { ErrorNote } from "../../ui/ErrorNote.js";
import { Loading, Spinner } from "../../ui/Spinner.js";
import { Switch } from "../../ui/Switch.js";
import { Tabs } from "../../ui/Tabs.js";
import { toast } from "../../ui/Toasts.js";
import { EventsPanel } from "../events/EventsPanel.js";
import { Wiring } from "../flow/Wiring.js";
import { SendTestEvent } from "../test-event/SendTestEvent.js";
import { PropsForm } from "./PropsForm.js";
import { buildConfiguredProps, editableProps, initialState, type FormState } from "./propsForm.js";

/** HTTP props come back as `{endpoint_url}`: the URLs this source listens on. */
export function endpointUrls(source: Source): { name: string; url: string }[] {
  const out: { name: string; url: string }[] = [];
  for (const [name, v] of Object.entries(source.configured_props ?? {})) {
    if (v && typeof v === "object" && typeof (v as { endpoint_url?: unknown }).endpoint_url === "string") {
      out.push({ name, url: (v as { endpoint_url: string }).endpoint_url });
    }
  }
  return out;
}

export function SourceDetail({ id }: { id: string }) {
  const source = useSource(id);
  const [tab, setTab] = useState<"events" | "config">("events");
  if (source.isPending) return <Loading label="Loading source" />;
  if (source.error || !source.data) {
    return (
      <ErrorNote
        error={source.error}
        title="Could not load this source"
        onRetry={() => void source.refetch()}
      />
    );
  }
  const s = source.data;
  return (
    <div className="source-detail">
      <SourceHeader source={s} />
      <Tabs
        label="Source sections"
        tabs={[
          { id: "events", label: "Live events" },
          { id: "config", label: "Configuration" },
        ]}
        value={tab}
        onChange={setTab}
      />
      {tab === "events" ? <EventsPanel kind="source" emitterId={s.id} name={s.name} inactive={!s.active} /> : <SourceConfig source={s} />}
    </div>
  );
}

function SourceHeader({ source }: { source: Source }) {
  const setActive = useSetSourceActive();
  const update = useUpdateSource();
  const del = useDeleteSource();
  const [renaming, setRenaming] = useState<string | null>(null);
  const [confirmDelete, setConfirmDelete] = useState(false);
  const urls = endpointUrls(source);

  const saveName = () => {
    const name = renaming?.trim();
    if (!name || name === source.name) return setRenaming(null);
    update.mutate({ source, name }, { onSuccess: () => (setRenaming(null), toast("Source renamed")) });
  };

  return (
    <header className="detail-header">
      <div className="title-row">
        {renaming === null ? (
          <>
            <h2 className="detail-title" title={source.name}>
              {source.name}
            </h2>
            <button type="button" className="btn small ghost" onClick={() => setRenaming(source.name)}>
              Rename
            </button>
          </>
        ) : (
          <form
            className="rename"
            onSubmit={(e) => {
              e.preventDefault();
              saveName();
            }}
          >
            <input
              aria-label="Source name"
              value={renaming}
              onChange={(e) => setRenaming(e.target.value)}
              disabled={update.isPending}
              autoFocus
            />
            <button type="submit" className="btn small primary" disabled={update.isPending}>
              Save
            </button>
            <button
              type="button"
              className="btn small"
              onClick={() => setRenaming(null)}
              disabled={update.isPending}
            >
              Cancel
            </button>
            {update.isPending && <Spinner label="Saving name" />}
          </form>
        )}
        <span className="spacer" />
        <label className="switch-label">
          <span>{source.active ? "Active" : "Inactive"}</span>
          <Switch
            label="Active"
            checked={source.active}
            busy={setActive.isPending}
            disabled={setActive.isPending}
            onChange={(active) => setActive.mutate({ source, active })}
          />
        </label>
        <button type="button" className="btn small danger" onClick={() => setConfirmDelete(true)}>
          Delete source
        </button>
      </div>
      {setActive.error && (
        <div role="alert" className="inline-error">
          Could not {source.active ? "deactivate" : "activate"} the source. {errorLine(setActive.error)}
        </div>
      )}
      <ErrorNote error={update.error} title="Could not rename the source" onDismiss={() => update.reset()} />
      <div className="meta-row muted">
        <span>
          <code>{source.id}</code>
        </span>
        <span>
          component <code>{source.component_id}</code>
        </span>
        <span>created <Time ms={source.created_at * 1000} /></span>
      </div>
      {urls.map((u) => (
        <div className="endpoint" key={u.name}>
          <span className="muted">Endpoint</span>
          <code className="endpoint-url">{u.url}</code>
          <CopyButton text={u.url} label="Copy endpoint URL" />
        </div>
      ))}
      <Wiring id={source.id} />
      {urls.length > 0 && (
        <SendTestEvent
          target={{ id: source.id, kind: "source", name: source.name, active: source.active }}
          onActivate={() => setActive.mutate({ source, active: true })}
        />
      )}
      {confirmDelete && (
        <ConfirmDialog
          title={`Delete ${source.name}?`}
          message={
            <p>The source, its events and its subscriptions will be deleted. This cannot be undone.</p>
          }
          confirmLabel="Delete source"
          onConfirm={async () => {
            await del.mutateAsync(source.id);
            toast(`Deleted ${source.name}`);
            navigate("sources");
          }}
          onClose={() => setConfirmDelete(false)}
        />
      )}
    </header>
  );
}

function SourceConfig({ source }: { source: Source }) {
  const component = useComponent(source.component_id);
  const update = useUpdateSource();
  const [state, setState] = useState<FormState | null>(null);
  const [errors, setErrors] = useState<Record<string, string>>({});
  if (component.isPending) return <Loading label="Loading the component's props" />;
  if (component.error || !component.data) {
    return (
      <div className="config">
        <ErrorNote
          error={component.error}
          title="Could not load the component of this source"
          onRetry={() => void component.refetch()}
        />
        <h3>Configured props</h3>
        {/* Secrets masked by the shared rule; an account reference is only an id, shown as it is. */}
        <pre className="code-block">{JSON.stringify(redactConfiguredProps(source.configured_props), null, 2)}</pre>
      </div>
    );
  }
  const descriptors = component.data.configurable_props;
  const form = state ?? initialState(descriptors, source.configured_props);
  const save = () => {
    const built = buildConfiguredProps(descriptors, form);
    if (!built.ok) return setErrors(built.errors);
    setErrors({});
    update.mutate(
      { source, configured_props: built.value },
      { onSuccess: () => (setState(null), toast("Props saved")) },
    );
  };
  return (
    <div className="config">
      <p className="muted">
        Component <strong>{component.data.name}</strong>{" "}
        {component.data.version && `v${component.data.version}`}
        {component.data.key && (
          <>
            {" "}
            · key <code>{component.data.key}</code>
          </>
        )}
      </p>
      <form
        onSubmit={(e) => {
          e.preventDefault();
          save();
        }}
      >
        <PropsForm
          descriptors={descriptors}
          state={form}
          onChange={setState}
          errors={errors}
          disabled={update.isPending}
          componentId={component.data.id}
          endpointUrls={endpointUrls(source)}
        />
        <ErrorNote error={update.error} title="Could not save the props" />
        <div className="form-actions">
          {update.isPending && <Spinner label="Saving props" showLabel />}
          <button
            type="button"
            className="btn"
            onClick={() => (setState(null), setErrors({}))}
            disabled={update.isPending || !state}
          >
            Reset
          </button>
          <button
            type="submit"
            className="btn primary"
            disabled={update.isPending || !state || editableProps(descriptors).length === 0}
            title={state ? undefined : "Nothing changed yet"}
          >
            Save props
          </button>
        </div>
      </form>
    </div>
  );
}
