/**
 * Subscriptions: every emitter → listener route of the account, create one (emitter ids or the
 * globs p_* / dc_*, a listener, a channel), delete one, and auto-subscriptions for emitters made
 * later (the API has no list of those: the ones made here are shown for this session).
 */
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import type { AutoSubscription, Subscription } from "../../../shared/resources/index.js";
import { AutoSubscriptionParams, SubscriptionParams } from "../../../shared/resources/index.js";
import { call } from "../../state/bridge.js";
import { Time } from "../../ui/Time.js";
import { keys, useEmitterNames, useSubscriptions } from "../../state/queries.js";
import { ConfirmDialog } from "../../ui/ConfirmDialog.js";
import { ErrorNote } from "../../ui/ErrorNote.js";
import { Spinner } from "../../ui/Spinner.js";
import { toast } from "../../ui/Toasts.js";
import { ChannelPicker, EmitterPicker, ListenerPicker } from "../pickers/pickers.js";

/**
 * First message per field, for showing under the input. The pickers take names, so an emitter
 * or listener that is empty or not an id is said in those words rather than zod's ("must be a
 * workflow or source id").
 */
function fieldErrors(
  issues: { path: PropertyKey[]; message: string }[],
  values: { emitter_id?: string; listener_id?: string },
): Record<string, string> {
  const out: Record<string, string> = {};
  for (const i of issues) {
    const k = String(i.path[0] ?? "");
    const typed = k === "emitter_id" || k === "listener_id" ? (values[k] ?? "") : undefined;
    const what = k === "emitter_id" ? "the source or workflow whose events trigger" : "the source or workflow to trigger";
    if (typed === "") out[k] ??= `Choose ${what}: type part of its name and pick it from the list.`;
    else if (typed !== undefined) out[k] ??= `No source or workflow is named "${typed}": pick one from the list.`;
    else out[k] ??= i.message;
  }
  return out;
}

export function SubscriptionsView() {
  const qc = useQueryClient();
  const subs = useSubscriptions();
  const names = useEmitterNames();
  const [toDelete, setToDelete] = useState<Subscription | null>(null);
  const nameOf = (id: string) => names.get(id) ?? id;

  return (
    <div className="page wide">
      <header className="page-head">
        <h1>Subscriptions</h1>
        <p className="muted">
          Events from an emitter trigger its listeners. A glob (p_* or dc_*) matches every workflow or source.
        </p>
      </header>
      <div className="two-col">
        <CreateSubscriptionForm />
        <AutoSubscriptionForm />
      </div>
      <section aria-label="Subscription list" className="card">
        <div className="section-head">
          <h2>All subscriptions</h2>
          {subs.isFetching && <Spinner label="Loading subscriptions" />}
        </div>
        <ErrorNote
          error={subs.error}
          title="Could not load subscriptions"
          onRetry={() => void subs.refetch()}
        />
        {subs.data && subs.data.length === 0 && <p className="muted">No subscriptions yet.</p>}
        {subs.data && subs.data.length > 0 && (
          <table className="data-table">
            <thead>
              <tr>
                <th scope="col">Emitter</th>
                <th scope="col">Listener</th>
                <th scope="col">Channel</th>
                <th scope="col" className="secondary">
                  Created
                </th>
                <th scope="col">
                  <span className="sr-only">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {subs.data.map((s) => (
                <tr key={s.id}>
                  <td>
                    <Named id={s.emitter_id} names={names} />
                  </td>
                  <td>
                    <Named id={s.listener_id} names={names} />
                  </td>
                  <td>
                    <span className="chip">{s.event_name === "" ? "default" : s.event_name}</span>
                  </td>
                  <td className="muted secondary">{s.created_at === undefined ? "—" : <Time ms={s.created_at * 1000} />}</td>
                  <td className="actions">
                    <button
                      type="button"
                      className="btn small danger"
                      aria-label={`Delete subscription ${nameOf(s.emitter_id)} to ${nameOf(s.listener_id)}`}
                      onClick={() => setToDelete(s)}
                    >
                      Delete
                    </button>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </section>
      {toDelete && (
        <ConfirmDialog
          title="Delete this subscription?"
          message={
            <p>
              Events from <Named id={toDelete.emitter_id} names={names} inline /> will no longer
              trigger <Named id={toDelete.listener_id} names={names} inline />.
            </p>
          }
          confirmLabel="Delete subscription"
          onConfirm={async () => {
            await call("deleteSubscription", {
              emitter_id: toDelete.emitter_id,
              listener_id: toDelete.listener_id,
              event_name: toDelete.event_name,
            });
            qc.setQueryData<Subscription[]>(keys.subscriptions, (l) =>
              l?.filter((x) => x.id !== toDelete.id),
            );
            void qc.invalidateQueries({ queryKey: keys.subscriptions });
            toast(`${nameOf(toDelete.emitter_id)} no longer triggers ${nameOf(toDelete.listener_id)}`);
          }}
          onClose={() => setToDelete(null)}
        />
      )}
    </div>
  );
}

/** A source's or workflow's name, its id small beside it (or, `inline`, on hover). */
function Named({ id, names, inline }: { id: string; names: Map<string, string>; inline?: boolean }) {
  const name = names.get(id);
  if (inline) return name ? <strong title={id}>{name}</strong> : <code>{id}</code>;
  return (
    <span className="named">
      {name && <span>{name}</span>}
      <code className={name ? "muted" : ""}>{id}</code>
    </span>
  );
}

function CreateSubscriptionForm() {
  const qc = useQueryClient();
  const names = useEmitterNames();
  const [emitter, setEmitter] = useState("");
  const [listener, setListener] = useState("");
  const [channel, setChannel] = useState("");
  const [errors, setErrors] = useState<Record<string, string>>({});
  const create = useMutation({
    mutationFn: (p: { emitter_id: string; listener_id: string; event_name: string }) =>
      call("createSubscription", p),
    onSuccess: (s) => {
      qc.setQueryData<Subscription[]>(keys.subscriptions, (l) =>
        l ? [s, ...l.filter((x) => x.id !== s.id)] : [s],
      );
      void qc.invalidateQueries({ queryKey: keys.subscriptions });
      setEmitter("");
      setListener("");
      toast(`${names.get(s.emitter_id) ?? s.emitter_id} now triggers ${names.get(s.listener_id) ?? s.listener_id}`);
    },
  });
  const submit = () => {
    const params = { emitter_id: emitter.trim(), listener_id: listener.trim(), event_name: channel };
    const parsed = SubscriptionParams.safeParse(params);
    if (!parsed.success) return setErrors(fieldErrors(parsed.error.issues, params));
    setErrors({});
    create.mutate(params);
  };
  return (
    <form
      className="card form-card"
      aria-label="New subscription"
      onSubmit={(e) => {
        e.preventDefault();
        submit();
      }}
    >
      <h2>New subscription</h2>
      <EmitterPicker id="sub-emitter" value={emitter} onChange={setEmitter} error={errors.emitter_id} />
      <ListenerPicker id="sub-listener" value={listener} onChange={setListener} error={errors.listener_id} />
      <ChannelPicker
        id="sub-channel"
        emitterId={emitter}
        value={channel}
        onChange={setChannel}
        error={errors.event_name}
      />
      <ErrorNote error={create.error} title="Could not create the subscription" />
      <div className="form-actions">
        {create.isPending && <Spinner label="Creating" />}
        <button type="submit" className="btn primary" disabled={create.isPending}>
          Subscribe
        </button>
      </div>
    </form>
  );
}

function AutoSubscriptionForm() {
  const qc = useQueryClient();
  const names = useEmitterNames();
  const [listener, setListener] = useState("");
  const [eventName, setEventName] = useState("default");
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [made, setMade] = useState<AutoSubscription[]>([]);
  const create = useMutation({
    mutationFn: (p: { listener_id: string; event_name: string }) => call("createAutoSubscription", p),
    onSuccess: (a) => {
      setMade((m) => [a, ...m]);
      setListener("");
      void qc.invalidateQueries({ queryKey: keys.subscriptions });
      toast(`${names.get(a.listener_id) ?? a.listener_id} will listen to every new source and workflow`);
    },
  });
  const submit = () => {
    const params = { listener_id: listener.trim(), event_name: eventName };
    const parsed = AutoSubscriptionParams.safeParse(params);
    if (!parsed.success) return setErrors(fieldErrors(parsed.error.issues, params));
    setErrors({});
    create.mutate(params);
  };
  return (
    <form
      className="card form-card"
      aria-label="New auto-subscription"
      onSubmit={(e) => {
        e.preventDefault();
        submit();
      }}
    >
      <h2>Auto-subscription</h2>
      <p className="muted small">
        Subscribes the listener to this channel of every source or workflow created from now on.
      </p>
      <ChannelPicker
        id="auto-stream"
        label="Channel"
        emitterId=""
        defaultValue="default"
        value={eventName}
        onChange={setEventName}
        error={errors.event_name}
      />
      <ListenerPicker id="auto-listener" value={listener} onChange={setListener} error={errors.listener_id} />
      <ErrorNote error={create.error} title="Could not create the auto-subscription" />
      <div className="form-actions">
        {create.isPending && <Spinner label="Creating" />}
        <button type="submit" className="btn primary" disabled={create.isPending}>
          Auto-subscribe
        </button>
      </div>
      {made.length > 0 && (
        <ul className="made-list" aria-label="Auto-subscriptions made in this session">
          {made.map((a) => (
            <li key={a.id}>
              <Named id={a.listener_id} names={names} inline /> ← every new emitter&apos;s{" "}
              <span className="chip">{a.event_name}</span>
            </li>
          ))}
        </ul>
      )}
    </form>
  );
}
