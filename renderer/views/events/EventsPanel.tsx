/**
 * Live events of one source or workflow: the volume chart, channel tabs, live/pause with an
 * "N new" counter, a search box (server-side, see useEventSearch), the virtualised table, a detail
 * pane, replays (one event, a shift-selected range) and deletes (one, a range, all) that update
 * the table at once, without a reload.
 */
import { useState } from "react";
import type { EventSummary } from "../../../shared/resources/index.js";
import { call } from "../../state/bridge.js";
import type { Channel } from "../../state/useLiveWatch.js";
import { absoluteTime, formatNumber } from "../../state/format.js";
import { useLiveFeed } from "../../state/liveFeed.js";
import { useLiveWatch } from "../../state/useLiveWatch.js";
import { ConfirmDialog } from "../../ui/ConfirmDialog.js";
import { ErrorNote } from "../../ui/ErrorNote.js";
import { Tabs } from "../../ui/Tabs.js";
import { toast } from "../../ui/Toasts.js";
import { EventDetail, type EmitterKind } from "./EventDetail.js";
import { EventTable } from "./EventTable.js";
import { ReplayDialog, type ReplayRange } from "./ReplayDialog.js";
import { useEventSearch } from "./useEventSearch.js";
import { VolumeChart } from "./VolumeChart.js";
import { ConnectionPill, StreamProblem } from "./StreamStatus.js";
import { clickSelect, countSelected, inBounds, selectionBounds, type Selection } from "./selection.js";

type ChannelTab = "default" | "$logs" | "$errors";
const SOURCE_TABS = [
  { id: "default", label: "Events" },
  { id: "$logs", label: "$logs" },
  { id: "$errors", label: "$errors" },
] as const;
const WORKFLOW_TABS = [
  { id: "default", label: "Emits" },
  { id: "$errors", label: "$errors" },
] as const;

/** `count` null: a search hides part of the range, so how many events it holds is not known here. */
type Pending = { kind: "range"; start_id: string; end_id: string; count: number | null } | { kind: "all" } | null;

export function EventsPanel(props: {
  kind: EmitterKind;
  emitterId: string;
  initialChannel?: ChannelTab;
  /** The source's or workflow's name, for the table's label and the confirmations. */
  name?: string;
  /** Inactive: it emits nothing, so the feed says "Inactive" rather than a green "Live". */
  inactive?: boolean;
}) {
  const { kind, emitterId, name, inactive } = props;
  const [tab, setTab] = useState<ChannelTab>(props.initialChannel ?? "default");
  const channel = tab === "default" ? "" : tab;
  return (
    <section className="events-panel" aria-label="Live events">
      <VolumeChart kind={kind} emitterId={emitterId} />
      <Tabs
        label="Channels"
        tabs={kind === "source" ? SOURCE_TABS : WORKFLOW_TABS}
        value={tab}
        onChange={setTab}
      />
      {/* A new key per stream: selection, filter and detail start fresh on another channel. */}
      <EventsStream
        key={`${emitterId}|${channel}`}
        kind={kind}
        emitterId={emitterId}
        channel={channel}
        name={name ?? emitterId}
        inactive={!!inactive}
      />
    </section>
  );
}

function loadNewest(kind: EmitterKind, id: string, channel: Channel): Promise<EventSummary[]> {
  const q = { limit: 100, event_name: channel || undefined };
  if (kind === "source") return call("listSourceEvents", id, q).then((p) => p.data);
  if (channel === "$errors") return call("listWorkflowErrors", id, { limit: 100 }).then((p) => p.data);
  return call("listWorkflowEvents", id, q).then((p) => p.data);
}

/** When an event was stored: its row's time, else the milliseconds its id begins with. */
function eventMs(id: string, rows: readonly EventSummary[]): number {
  return rows.find((r) => r.id === id)?.indexed_at_ms ?? Number(id.split("-")[0]);
}

function EventsStream(props: { kind: EmitterKind; emitterId: string; channel: Channel; name: string; inactive: boolean }) {
  const { kind, emitterId, channel, name, inactive } = props;
  const watch = useLiveWatch(emitterId, channel, () => loadNewest(kind, emitterId, channel));
  const feedKey = useLiveFeed((s) => s.key);
  const allRows = useLiveFeed((s) => s.rows);
  const pending = useLiveFeed((s) => s.pending.length);
  const paused = useLiveFeed((s) => s.paused);
  const setPaused = useLiveFeed((s) => s.setPaused);
  const removeRange = useLiveFeed((s) => s.removeRange);
  // Rows of a previous stream may linger for one render before the reset lands.
  const rows = feedKey === watch.key ? allRows : EMPTY;

  const [filter, setFilter] = useState("");
  const search = useEventSearch(kind, emitterId, channel, filter, rows);
  const searching = search.q !== "";
  const shown = searching ? search.rows : rows;

  const [selection, setSelection] = useState<Selection | null>(null);
  const [openId, setOpenId] = useState<string | null>(null);
  const [confirm, setConfirm] = useState<Pending>(null);
  const [replay, setReplay] = useState<ReplayRange | null>(null);
  const openRow = openId ? shown.find((r) => r.id === openId) : undefined;
  const selectedCount = countSelected(shown, selection);
  // During a search a range also holds events the search hides: say "range", not a count.
  const rangeCount = searching && selectedCount > 1 ? null : selectedCount;
  const rangeWords = rangeCount === null ? "range" : `${formatNumber(rangeCount)} ${rangeCount === 1 ? "event" : "events"}`;
  const canDelete = kind === "source";

  const deleteEvents = async (q: { start_id?: string; end_id?: string }) => {
    await call("deleteSourceEvents", emitterId, { ...q, event_name: channel || undefined });
    removeRange(q.start_id, q.end_id);
    setSelection(null);
    if (openId && (!q.start_id || !q.end_id || inBounds(openId, { start_id: q.start_id, end_id: q.end_id })))
      setOpenId(null);
  };

  const askDeleteSelection = () => {
    if (!selection) return;
    const b = selectionBounds(selection);
    setConfirm({ kind: "range", ...b, count: rangeCount });
  };

  return (
    <div className="events-stream">
      <div className="events-toolbar" role="toolbar" aria-label="Event controls">
        <button
          type="button"
          className={paused ? "btn small" : "btn small live"}
          aria-pressed={!paused}
          onClick={() => setPaused(!paused)}
          title={paused ? "Resume the live feed" : "Pause the live feed"}
        >
          {paused ? "▶ Resume" : "❚❚ Pause"}
        </button>
        {/* Its place is kept while paused, and its width steady: the first new event (or one
            more digit) must not reflow the toolbar and move the table and the buttons under
            the pointer. Hidden, it is out of the page's roles and focus order. */}
        {paused && (
          <button
            type="button"
            className="btn small badge new-count"
            style={pending > 0 ? undefined : { visibility: "hidden" }}
            onClick={() => setPaused(false)}
          >
            {formatNumber(pending)} new
          </button>
        )}
        <ConnectionPill state={watch.state} paused={paused} inactive={inactive} kind={kind} />
        <input
          type="search"
          className="filter"
          placeholder="Search events"
          aria-label="Search events"
          title="Searches every retained event of this channel (its data and summary)"
          value={filter}
          onChange={(e) => {
            setFilter(e.target.value);
            setSelection(null);
          }}
        />
        <span className="muted count" aria-live="polite">
          {searching
            ? search.loading
              ? "Searching…"
              : `${formatNumber(search.total)} ${search.total === 1 ? "match" : "matches"}`
            : `${formatNumber(rows.length)} ${rows.length === 1 ? "event" : "events"}`}
        </span>
        <span className="spacer" />
        {/* The selection's actions stay on the toolbar's one line (short words, full names for
            screen readers and as tooltips), so selecting rows never pushes the table down. */}
        {selectedCount > 0 && selection && (canDelete || selectedCount > 1) && (
          <div className="selection-actions" role="group" aria-label="Selected events">
            <span className="selection-count">
              {rangeCount === null ? "Range" : formatNumber(rangeCount)} selected
            </span>
            {selectedCount > 1 && (
              <button
                type="button"
                className="btn small"
                aria-label={`Replay ${rangeWords}`}
                title={`Replay ${rangeWords}`}
                onClick={() => setReplay({ ...selectionBounds(selection), count: rangeCount })}
              >
                Replay
              </button>
            )}
            {canDelete && (
              <button
                type="button"
                className="btn small danger"
                aria-label={`Delete ${rangeWords}`}
                title={`Delete ${rangeWords}`}
                onClick={askDeleteSelection}
              >
                Delete
              </button>
            )}
            <button
              type="button"
              className="btn small ghost icon"
              aria-label="Clear the selection"
              title="Clear the selection"
              onClick={() => setSelection(null)}
            >
              ×
            </button>
          </div>
        )}
        {canDelete && (
          <button
            type="button"
            className="btn small"
            onClick={() => setConfirm({ kind: "all" })}
            disabled={rows.length === 0}
          >
            Delete all
          </button>
        )}
      </div>
      <StreamProblem watch={watch} />
      {searching && (
        <ErrorNote error={search.error} title="The search failed" onRetry={search.retry} />
      )}
      <div
        className={openRow ? "events-body with-detail" : "events-body"}
        onKeyDown={(e) => {
          if (e.key === "Escape" && openRow) {
            e.stopPropagation();
            setOpenId(null);
          }
        }}
      >
        <EventTable
          rows={shown}
          selection={selection}
          openId={openId}
          label={`Events of ${emitterId}${channel ? ` on ${channel}` : ""}`}
          emptyText={
            watch.loading
              ? "Loading events…"
              : searching
                ? search.loading
                  ? "Searching…"
                  : `No retained event matches “${search.q}”.`
                : kind === "workflow"
                  ? "No events yet. Send a request to the endpoint URL, or subscribe this workflow to a source."
                  : "No events yet. New ones appear here as they arrive."
          }
          onSelect={(id, shift, byKey) => {
            setSelection((prev) => clickSelect(prev, id, shift));
            // A click opens the row; arrow keys only move (Enter opens), so browsing is cheap.
            if (!shift && !byKey) setOpenId(id);
          }}
          onOpen={setOpenId}
        />
        {openRow && (
          <EventDetail
            kind={kind}
            emitterId={emitterId}
            channel={channel}
            row={openRow}
            onClose={() => setOpenId(null)}
            onReplay={() => setReplay({ start_id: openRow.id, end_id: openRow.id, count: 1 })}
            onDelete={
              canDelete
                ? () => setConfirm({ kind: "range", start_id: openRow.id, end_id: openRow.id, count: 1 })
                : undefined
            }
          />
        )}
      </div>
      {searching && search.hasMore && (
        <div className="events-more">
          <button type="button" className="btn small" onClick={search.loadMore}>
            Load more matches
          </button>
        </div>
      )}
      {replay && (
        <ReplayDialog
          kind={kind}
          emitterId={emitterId}
          channel={channel}
          range={replay}
          filtered={searching}
          onClose={() => setReplay(null)}
        />
      )}
      {confirm?.kind === "range" && (
        <ConfirmDialog
          title={
            confirm.count === 1
              ? "Delete this event?"
              : confirm.count === null
                ? "Delete every event in this range?"
                : `Delete ${formatNumber(confirm.count)} events?`
          }
          message={
            confirm.start_id === confirm.end_id ? (
              <p>
                The event of <EventTime id={confirm.start_id} rows={shown} /> will be deleted from {name}. This
                cannot be undone.
              </p>
            ) : (
              <p>
                Every event of {name} from <EventTime id={confirm.start_id} rows={shown} /> to{" "}
                <EventTime id={confirm.end_id} rows={shown} /> (inclusive) will be deleted from the server.
                This cannot be undone.
              </p>
            )
          }
          confirmLabel={
            confirm.count === 1
              ? "Delete event"
              : confirm.count === null
                ? "Delete range"
                : `Delete ${formatNumber(confirm.count)} events`
          }
          onConfirm={async () => {
            await deleteEvents({ start_id: confirm.start_id, end_id: confirm.end_id });
            toast(
              confirm.count === 1
                ? "Event deleted"
                : confirm.count === null
                  ? "Range deleted"
                  : `${formatNumber(confirm.count)} events deleted`,
            );
          }}
          onClose={() => setConfirm(null)}
        />
      )}
      {confirm?.kind === "all" && (
        <ConfirmDialog
          title="Delete all events?"
          message={
            <p>
              Every event of {name}
              {channel ? ` on ${channel}` : ""} will be deleted. This cannot be undone.
            </p>
          }
          confirmLabel="Delete all events"
          onConfirm={async () => {
            await deleteEvents({});
            toast("All events deleted");
          }}
          onClose={() => setConfirm(null)}
        />
      )}
    </div>
  );
}

const EMPTY: EventSummary[] = [];

/** An event named by when it was stored (to the millisecond: a range's ends may be close), its id on hover. */
function EventTime({ id, rows }: { id: string; rows: readonly EventSummary[] }) {
  const ms = eventMs(id, rows);
  return Number.isFinite(ms) ? (
    <strong title={`event ${id}`}>{absoluteTime(ms, { ms: true })}</strong>
  ) : (
    <code>{id}</code>
  );
}
