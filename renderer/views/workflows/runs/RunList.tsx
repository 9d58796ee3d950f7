/**
 * The runs of a workflow as a grid, newest first: status (a waiting run's next attempt or
 * resumption beside it, counting down), trigger, started, duration. Keyboard
 * as the events table: the grid is one tab stop; arrows, Page Up/Down, Home and End move the
 * cursor row (aria-activedescendant), Enter opens it; a click opens at once.
 */
import { useEffect, useRef, useState, type KeyboardEvent } from "react";
import type { Run } from "../../../../shared/resources/index.js";
import { absoluteTime, relativeTime } from "../../../state/format.js";
import { useEmitterNames } from "../../../state/queries.js";
import { durationText, RUN_STATUS_LABELS, statusTone, triggerText, waitText } from "./runText.js";

export function RunList(props: {
  runs: readonly Run[];
  cursorId: string | null;
  openId: string | null;
  onCursor: (id: string) => void;
  onOpen: (id: string) => void;
  label: string;
  emptyText: string;
}) {
  const names = useEmitterNames();
  const { runs, cursorId, openId, onCursor, onOpen, label, emptyText } = props;
  const ref = useRef<HTMLDivElement>(null);
  // Relative times and running durations drift: re-render every second.
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    const t = setInterval(() => setNow(Date.now()), 1000);
    return () => clearInterval(t);
  }, []);

  const cursorIndex = cursorId ? runs.findIndex((r) => r.id === cursorId) : -1;
  // Keep the cursor row in view when the keyboard moves it (runs arriving above shift it too).
  useEffect(() => {
    if (!cursorId) return;
    const row = ref.current?.querySelector(`[data-run-id="${CSS.escape(cursorId)}"]`);
    if (row && "scrollIntoView" in row) row.scrollIntoView({ block: "nearest" });
  }, [cursorId]);

  const moveTo = (index: number) => {
    const run = runs[Math.max(0, Math.min(runs.length - 1, index))];
    if (run) onCursor(run.id);
  };
  const onKeyDown = (e: KeyboardEvent) => {
    if (runs.length === 0) return;
    const page = 10;
    const step: Record<string, number> = { ArrowDown: 1, ArrowUp: -1, PageDown: page, PageUp: -page };
    if (e.key in step) {
      e.preventDefault();
      moveTo(cursorIndex < 0 ? 0 : cursorIndex + (step[e.key] ?? 0));
    } else if (e.key === "Home" || e.key === "End") {
      e.preventDefault();
      moveTo(e.key === "Home" ? 0 : runs.length - 1);
    } else if (e.key === "Enter" && cursorId) {
      e.preventDefault();
      onOpen(cursorId);
    }
  };

  return (
    <div
      ref={ref}
      className="run-table"
      role="grid"
      aria-label={label}
      aria-rowcount={runs.length + 1}
      tabIndex={0}
      onKeyDown={onKeyDown}
      aria-activedescendant={cursorIndex >= 0 && cursorId ? runDomId(cursorId) : undefined}
    >
      <div role="row" aria-rowindex={1} className="run-row run-head">
        <div role="columnheader">Status</div>
        <div role="columnheader">Trigger</div>
        <div role="columnheader">Started</div>
        <div role="columnheader" className="c-duration">
          Duration
        </div>
      </div>
      {runs.length === 0 ? (
        <div className="event-empty">{emptyText}</div>
      ) : (
        runs.map((run, i) => {
          const started = run.started_at_ms;
          const wait = waitText(run, now);
          return (
            <div
              key={run.id}
              id={runDomId(run.id)}
              role="row"
              aria-rowindex={i + 2}
              aria-selected={run.id === openId}
              data-run-id={run.id}
              className={
                "run-row" + (run.id === cursorId ? " cursor" : "") + (run.id === openId ? " open" : "")
              }
              onClick={() => {
                onCursor(run.id);
                onOpen(run.id);
              }}
            >
              <div role="gridcell">
                <span className={`status-chip tone-${statusTone(run.status)}`}>
                  {RUN_STATUS_LABELS[run.status]}
                </span>
                {run.attempt > 1 && <span className="muted small"> · attempt {run.attempt}</span>}
                {wait && (
                  <span className="muted small run-wait" title={absoluteTime(wait.at)}>
                    {" "}
                    · {wait.text}
                  </span>
                )}
              </div>
              <div
                role="gridcell"
                className="c-trigger"
                title={run.trigger.emitter_id ? `${run.id}, event from ${run.trigger.emitter_id}` : run.id}
              >
                {triggerText(run, names)}
              </div>
              <div role="gridcell" title={started === null ? undefined : absoluteTime(started)}>
                {started === null ? "not yet" : relativeTime(started, now)}
              </div>
              <div role="gridcell" className="c-duration">
                {durationText(run, now)}
              </div>
            </div>
          );
        })
      )}
    </div>
  );
}

export function runDomId(runId: string): string {
  return `run-${runId}`;
}
