/**
 * The detail pane of one event: its metadata, the full data (fetched with expand=event, since the
 * table's copy may be truncated) as a JSON tree, copy as JSON, replay, and delete (sources only).
 */
import { useQuery } from "@tanstack/react-query";
import type { EventSummary } from "../../../shared/resources/index.js";
import { call } from "../../state/bridge.js";
import type { Channel } from "../../state/useLiveWatch.js";
import { absoluteTime, formatBytes, relativeTime } from "../../state/format.js";
import { CopyButton } from "../../ui/CopyButton.js";
import { ErrorNote } from "../../ui/ErrorNote.js";
import { JsonTree } from "../../ui/JsonTree.js";
import { Spinner } from "../../ui/Spinner.js";
import { channelLabel, eventSize } from "./eventText.js";

export type EmitterKind = "source" | "workflow";

async function fetchFull(kind: EmitterKind, emitterId: string, channel: Channel, row: EventSummary) {
  if (kind === "source") return call("getSourceEvent", emitterId, row.id, channel || undefined);
  // Workflows have no single-event read: look for it among the newest expanded events.
  const page =
    channel === "$errors"
      ? await call("listWorkflowErrors", emitterId, { expand: "event", limit: 100 })
      : await call("listWorkflowEvents", emitterId, {
          expand: "event",
          limit: 100,
          event_name: channel || undefined,
        });
  return page.data.find((e) => e.id === row.id) ?? row;
}

export function EventDetail(props: {
  kind: EmitterKind;
  emitterId: string;
  channel: Channel;
  row: EventSummary;
  onClose: () => void;
  onReplay?: () => void;
  onDelete?: () => void;
}) {
  const { kind, emitterId, channel, row, onClose, onReplay, onDelete } = props;
  const full = useQuery({
    queryKey: ["event", emitterId, channel, row.id],
    queryFn: () => fetchFull(kind, emitterId, channel, row),
    staleTime: Infinity,
    retry: false,
  });
  const event = full.data ?? row;
  const json = JSON.stringify(event.event, null, 2) ?? "null";
  return (
    <aside className="event-detail" aria-label={`Event ${row.id}`}>
      <header className="detail-head">
        <h3>Event</h3>
        <div className="row-actions">
          <CopyButton text={json} label="Copy JSON of this event">
            Copy JSON
          </CopyButton>
          {onReplay && (
            <button type="button" className="btn small" onClick={onReplay} title="Deliver this event again to its listeners">
              Replay
            </button>
          )}
          {onDelete && (
            <button type="button" className="btn small danger" onClick={onDelete}>
              Delete event
            </button>
          )}
          <button
            type="button"
            className="btn small ghost"
            aria-label="Close event details"
            onClick={onClose}
          >
            ×
          </button>
        </div>
      </header>
      <dl className="meta">
        <dt>ID</dt>
        <dd>
          <code>{row.id}</code>
        </dd>
        <dt>Time</dt>
        <dd>
          {absoluteTime(row.indexed_at_ms, { ms: true })} <span className="muted">({relativeTime(row.indexed_at_ms)})</span>
        </dd>
        <dt>Channel</dt>
        <dd>{channelLabel(row.metadata.name)}</dd>
        <dt>Size</dt>
        <dd>{formatBytes(eventSize(event))}</dd>
        {row.metadata.summary && (
          <>
            <dt>Summary</dt>
            <dd>{row.metadata.summary}</dd>
          </>
        )}
        <dt>Emit ID</dt>
        <dd>
          <code>{row.metadata.emit_id}</code>
        </dd>
      </dl>
      {full.isFetching && <Spinner label="Loading the full event" showLabel />}
      <ErrorNote
        error={full.error}
        title="Could not load the full event"
        onRetry={() => void full.refetch()}
      />
      {full.data?.metadata.truncated && (
        <p className="muted">The server returned this event truncated; it is larger than it keeps in full.</p>
      )}
      <div className="detail-json">
        <JsonTree value={event.event} label="Event data" />
      </div>
    </aside>
  );
}
