/**
 * Sends events again (`POST /sources|workflows/{id}/events/replay`): one event from its detail
 * pane, or a selected range. The dialog lists who listens to the channel (the subscriptions of
 * this emitter, direct or through `dc_*` / `p_*`), lets the user pick all of them or one, and
 * once the server has queued the deliveries says how many. A refusal shows the server's message
 * in place.
 */
import { useMemo, useState } from "react";
import { call } from "../../state/bridge.js";
import { formatNumber } from "../../state/format.js";
import { useAllSources, useAllWorkflows, useSubscriptions } from "../../state/queries.js";
import type { Channel } from "../../state/useLiveWatch.js";
import { ErrorNote } from "../../ui/ErrorNote.js";
import { Modal } from "../../ui/Modal.js";
import { Spinner } from "../../ui/Spinner.js";
import { toast } from "../../ui/Toasts.js";
import type { EmitterKind } from "./EventDetail.js";
import { channelLabel } from "./eventText.js";

export interface ReplayRange {
  start_id: string;
  end_id: string;
  /** Events in the range; null when a search hides part of it (the server's answer tells). */
  count: number | null;
}

const plural = (n: number, one: string, many: string) => `${formatNumber(n)} ${n === 1 ? one : many}`;

/** Listener ids of an emitter's channel, from the user's subscriptions. */
export function listenersOf(
  subs: readonly { emitter_id: string; listener_id: string; event_name: string }[],
  emitterId: string,
  channel: string,
): string[] {
  const glob = emitterId.startsWith("dc_") ? "dc_*" : "p_*";
  const ids = subs
    .filter((s) => (s.emitter_id === emitterId || s.emitter_id === glob) && s.event_name === channel && s.listener_id !== emitterId)
    .map((s) => s.listener_id);
  return [...new Set(ids)];
}

export function ReplayDialog(props: {
  kind: EmitterKind;
  emitterId: string;
  channel: Channel;
  range: ReplayRange;
  /** True when a search is filtering the table: a range then also holds events it hides. */
  filtered?: boolean;
  onClose: () => void;
}) {
  const { kind, emitterId, channel, range, filtered, onClose } = props;
  const subs = useSubscriptions();
  const sources = useAllSources(true);
  const workflows = useAllWorkflows();
  const listeners = useMemo(() => listenersOf(subs.data ?? [], emitterId, channel), [subs.data, emitterId, channel]);
  const nameOf = (id: string) =>
    (id.startsWith("dc_") ? sources.data?.find((s) => s.id === id)?.name : workflows.data?.find((w) => w.id === id)?.name) ?? null;

  const [choice, setChoice] = useState<string>("all");
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const [queued, setQueued] = useState<{ events: number; deliveries: number } | null>(null);
  const single = range.start_id === range.end_id;

  const run = async () => {
    setBusy(true);
    setError(null);
    try {
      const body = {
        start_id: range.start_id,
        end_id: range.end_id,
        event_name: channel || undefined,
        ...(choice !== "all" ? { listener_id: choice } : {}),
      };
      const r = kind === "source" ? await call("replaySourceEvents", emitterId, body) : await call("replayWorkflowEvents", emitterId, body);
      setQueued(r);
      toast(`Replay queued: ${plural(r.events, "event", "events")}, ${plural(r.deliveries, "delivery", "deliveries")}`);
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };

  const what = range.count === null ? "range" : plural(range.count, "event", "events");
  const title = single ? "Replay this event" : `Replay ${what}`;
  return (
    <Modal
      title={title}
      onClose={onClose}
      busy={busy}
      footer={
        queued ? (
          <button type="button" className="btn primary" onClick={onClose} data-autofocus>
            Close
          </button>
        ) : (
          <>
            {busy && <Spinner label="Queuing the replay" />}
            <button type="button" className="btn" onClick={onClose} disabled={busy}>
              Cancel
            </button>
            <button type="button" className="btn primary" onClick={() => void run()} disabled={busy || listeners.length === 0}>
              {single ? "Replay event" : `Replay ${what}`}
            </button>
          </>
        )
      }
    >
      <p>
        {single ? (
          <>
            Event <code>{range.start_id}</code> is delivered again, with the same id and data, to the listeners of the{" "}
            {channelLabel(channel)} channel.
          </>
        ) : (
          <>
            Every event from <code>{range.start_id}</code> to <code>{range.end_id}</code> (inclusive) is delivered again, in
            order, with the same ids and data, to the listeners of the {channelLabel(channel)} channel.
            {filtered && " The range also holds events the search does not show."}
          </>
        )}
      </p>
      {subs.isLoading ? (
        <Spinner label="Loading listeners" showLabel />
      ) : listeners.length === 0 ? (
        <p className="muted">Nothing listens to this channel: subscribe a workflow or source to it first.</p>
      ) : (
        <fieldset className="replay-listeners" disabled={busy || queued !== null}>
          <legend>Send to</legend>
          <label>
            <input type="radio" name="listener" value="all" checked={choice === "all"} onChange={() => setChoice("all")} />
            All listeners ({formatNumber(listeners.length)})
          </label>
          {listeners.map((id) => (
            <label key={id}>
              <input type="radio" name="listener" value={id} checked={choice === id} onChange={() => setChoice(id)} />
              {nameOf(id) ? (
                <>
                  {nameOf(id)} <code className="muted">{id}</code>
                </>
              ) : (
                <code>{id}</code>
              )}
            </label>
          ))}
        </fieldset>
      )}
      <ErrorNote error={error} title="The replay was refused" />
      {queued && (
        <p role="status" className="replay-done">
          Queued {plural(queued.events, "event", "events")} for{" "}
          {choice === "all" ? plural(listeners.length, "listener", "listeners") : (nameOf(choice) ?? choice)}:{" "}
          {plural(queued.deliveries, "delivery", "deliveries")}.
        </p>
      )}
    </Modal>
  );
}
