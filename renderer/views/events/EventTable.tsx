/**
 * The virtualised events table (role=grid): only the visible rows are in the DOM, so 50,000
 * retained rows cost no more to render than 50. Click selects, shift-click extends the range,
 * arrows move (shift+arrow extends), Enter opens the detail pane.
 */
import { useEffect, useRef, useState, type KeyboardEvent } from "react";
import { useVirtualizer } from "@tanstack/react-virtual";
import type { EventSummary } from "../../../shared/resources/index.js";
import { absoluteTime, formatBytes, formatClock, relativeTime } from "../../state/format.js";
import { channelLabel, eventSize, eventSummaryText, eventTimeMs } from "./eventText.js";
import { inBounds, selectionBounds, type Selection } from "./selection.js";

const ROW_HEIGHT = 40;
/** The column header row, sticky at the top of the grid, which is itself the scroller. */
const HEAD_HEIGHT = 32;

export function EventTable(props: {
  rows: readonly EventSummary[];
  selection: Selection | null;
  openId: string | null;
  /** A plain click or arrow key selects one row; shift extends. `byKey` for keyboard moves. */
  onSelect: (id: string, shift: boolean, byKey: boolean) => void;
  onOpen: (id: string) => void;
  label: string;
  emptyText: string;
}) {
  const { rows, selection, openId, onSelect, onOpen, label, emptyText } = props;
  const scrollRef = useRef<HTMLDivElement>(null);
  // Relative times drift: re-render the visible rows (only those) every second.
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    const t = setInterval(() => setNow(Date.now()), 1000);
    return () => clearInterval(t);
  }, []);

  // The virtualizer's functions are used directly in render, never memoised, so the compiler's
  // warning about them does not apply here.
  // eslint-disable-next-line react-hooks/incompatible-library
  const virtualizer = useVirtualizer({
    count: rows.length,
    getScrollElement: () => scrollRef.current,
    estimateSize: () => ROW_HEIGHT,
    overscan: 12,
    // The grid scrolls (so the one focusable element is the scrolling one, and keyboard users
    // can scroll it: WCAG 2.1.1); the rows start below its sticky header, and scrolling to a row
    // keeps it out from under the header.
    scrollMargin: HEAD_HEIGHT,
    scrollPaddingStart: HEAD_HEIGHT,
    // Index keys (the default): an id-based key function would be a new function on every
    // batch and make the virtualizer re-measure all 50,000 rows each time. Rows have a fixed
    // height, so nothing measured is lost when indexes shift. React keys are the same slot
    // indexes, so a batch updates the visible rows' text in place instead of replacing them.
  });

  const head = selection?.head ?? null;
  const headIndex = head ? rows.findIndex((r) => r.id === head) : -1;
  const bounds = selection ? selectionBounds(selection) : null;

  const moveTo = (index: number, shift: boolean) => {
    const row = rows[Math.max(0, Math.min(rows.length - 1, index))];
    if (!row) return;
    onSelect(row.id, shift, true);
    virtualizer.scrollToIndex(rows.indexOf(row), { align: "auto" });
  };

  const onKeyDown = (e: KeyboardEvent) => {
    if (rows.length === 0) return;
    const page = Math.max(1, Math.floor(((scrollRef.current?.clientHeight ?? 400) - HEAD_HEIGHT) / ROW_HEIGHT) - 1);
    const step: Record<string, number> = { ArrowDown: 1, ArrowUp: -1, PageDown: page, PageUp: -page };
    if (e.key in step) {
      e.preventDefault();
      moveTo(headIndex < 0 ? 0 : headIndex + (step[e.key] ?? 0), e.shiftKey);
    } else if (e.key === "Home" || e.key === "End") {
      e.preventDefault();
      moveTo(e.key === "Home" ? 0 : rows.length - 1, e.shiftKey);
    } else if (e.key === "Enter" && head) {
      e.preventDefault();
      onOpen(head);
    }
  };

  const items = virtualizer.getVirtualItems();
  return (
    <div
      ref={scrollRef}
      className="event-table"
      role="grid"
      aria-label={label}
      aria-rowcount={rows.length + 1}
      aria-multiselectable="true"
      tabIndex={0}
      onKeyDown={onKeyDown}
      aria-activedescendant={head && headIndex >= 0 ? rowDomId(head) : undefined}
    >
      <div role="row" aria-rowindex={1} className="event-row event-head">
        <div role="columnheader" className="c-time">
          Time
        </div>
        <div role="columnheader" className="c-summary">
          Summary
        </div>
        <div role="columnheader" className="c-channel">
          Channel
        </div>
        <div role="columnheader" className="c-size">
          Size
        </div>
      </div>
      <div className="event-scroll">
        {rows.length === 0 ? (
          <div className="event-empty">{emptyText}</div>
        ) : (
          <div style={{ height: virtualizer.getTotalSize(), position: "relative" }}>
            {items.map((item) => {
              const row = rows[item.index];
              if (!row) return null;
              const selected = bounds ? inBounds(row.id, bounds) : false;
              const t = eventTimeMs(row);
              return (
                <div
                  key={item.key}
                  id={rowDomId(row.id)}
                  role="row"
                  aria-rowindex={item.index + 2}
                  aria-selected={selected}
                  data-event-id={row.id}
                  className={
                    "event-row" +
                    (selected ? " selected" : "") +
                    (row.id === head ? " cursor" : "") +
                    (row.id === openId ? " open" : "")
                  }
                  style={{ transform: `translateY(${item.start - HEAD_HEIGHT}px)`, height: ROW_HEIGHT }}
                  onMouseDown={(e) => {
                    if (e.shiftKey) e.preventDefault(); // no text selection on shift-click
                  }}
                  onClick={(e) => onSelect(row.id, e.shiftKey, false)}
                  onDoubleClick={() => onOpen(row.id)}
                >
                  <div role="gridcell" className="c-time" title={absoluteTime(t, { ms: true })}>
                    <span className="rel">{relativeTime(t, now)}</span>
                    <span className="abs">{formatClock(t)}</span>
                  </div>
                  <div role="gridcell" className="c-summary" title={eventSummaryText(row)}>
                    {eventSummaryText(row)}
                  </div>
                  <div role="gridcell" className="c-channel">
                    <span className={`chip ch-${channelLabel(row.metadata.name).replace("$", "")}`}>
                      {channelLabel(row.metadata.name)}
                    </span>
                  </div>
                  <div role="gridcell" className="c-size">
                    {formatBytes(eventSize(row))}
                  </div>
                </div>
              );
            })}
          </div>
        )}
      </div>
    </div>
  );
}

export function rowDomId(eventId: string): string {
  return `ev-${eventId}`;
}
