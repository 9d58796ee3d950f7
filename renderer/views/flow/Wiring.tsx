/**
 * "Listens to" and "Sends to" on a source's or workflow's page: its subscriptions both ways, as
 * links to the other end (a glob emitter, `dc_*` / `p_*`, counts for every source / workflow).
 * On a workflow, a trigger can be added here: an Emitter picker, subscribed on Enter or "Add".
 */
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useMemo, useState } from "react";
import type { Subscription } from "../../../shared/resources/index.js";
import { SubscriptionParams } from "../../../shared/resources/index.js";
import { routeHref } from "../../app/router.js";
import { call } from "../../state/bridge.js";
import { keys, useAllSources, useAllWorkflows, useSubscriptions } from "../../state/queries.js";
import { ErrorNote } from "../../ui/ErrorNote.js";
import { toast } from "../../ui/Toasts.js";
import { EmitterPicker } from "../pickers/pickers.js";

function End({ id, names }: { id: string; names: Map<string, string> }) {
  if (id === "dc_*") return <span>All sources</span>;
  if (id === "p_*") return <span>All workflows</span>;
  const view = id.startsWith("p_") ? "workflows" : "sources";
  return <a href={routeHref(view, id)}>{names.get(id) ?? id}</a>;
}

const channelNote = (s: Subscription) => (s.event_name ? <span className="chip">{s.event_name}</span> : null);

export function Wiring({ id, triggers = false }: { id: string; triggers?: boolean }) {
  const subs = useSubscriptions();
  const sources = useAllSources(true);
  const workflows = useAllWorkflows();
  const names = useMemo(() => {
    const m = new Map<string, string>();
    for (const s of sources.data ?? []) m.set(s.id, s.name);
    for (const w of workflows.data ?? []) m.set(w.id, w.name);
    return m;
  }, [sources.data, workflows.data]);
  const glob = id.startsWith("p_") ? "p_*" : "dc_*";
  const listensTo = (subs.data ?? []).filter((s) => s.listener_id === id);
  const sendsTo = (subs.data ?? []).filter((s) => s.emitter_id === id || s.emitter_id === glob);

  return (
    <div className="wiring" aria-label="Wiring" role="group">
      <div className="wiring-side">
        <span className="wiring-title">Listens to</span>
        {listensTo.length === 0 ? (
          <span className="muted">nothing</span>
        ) : (
          <ul aria-label="Listens to">
            {listensTo.map((s) => (
              <li key={s.id}>
                <End id={s.emitter_id} names={names} /> {channelNote(s)}
              </li>
            ))}
          </ul>
        )}
      </div>
      <div className="wiring-side">
        <span className="wiring-title">Sends to</span>
        {sendsTo.length === 0 ? (
          <span className="muted">nothing</span>
        ) : (
          <ul aria-label="Sends to">
            {sendsTo.map((s) => (
              <li key={s.id}>
                <End id={s.listener_id} names={names} /> {channelNote(s)}
              </li>
            ))}
          </ul>
        )}
      </div>
      {triggers && <AddTrigger listenerId={id} />}
    </div>
  );
}

function AddTrigger({ listenerId }: { listenerId: string }) {
  const qc = useQueryClient();
  const [emitter, setEmitter] = useState("");
  const [error, setError] = useState<string | undefined>();
  const add = useMutation({
    mutationFn: (emitter_id: string) =>
      call("createSubscription", { emitter_id, listener_id: listenerId, event_name: "" }),
    onSuccess: () => {
      setEmitter("");
      void qc.invalidateQueries({ queryKey: keys.subscriptions });
      toast("Trigger added");
    },
  });
  return (
    <form
      className="wiring-add"
      aria-label="Add a trigger"
      onSubmit={(e) => {
        e.preventDefault();
        const parsed = SubscriptionParams.shape.emitter_id.safeParse(emitter);
        if (!parsed.success) return setError("choose a source or workflow");
        setError(undefined);
        add.mutate(emitter);
      }}
    >
      <EmitterPicker
        id={`trigger-${listenerId}`}
        value={emitter}
        onChange={setEmitter}
        error={error}
        hint="Its events run this workflow"
      />
      <button type="submit" className="btn small" disabled={add.isPending}>
        Add trigger
      </button>
      <ErrorNote error={add.error} title="Could not add the trigger" onDismiss={() => add.reset()} />
    </form>
  );
}
