/**
 * What a retried run's inspector adds: when it goes on (a countdown to its next attempt or its
 * resumption), and each attempt made with its outcome and error, oldest first. A run tried once
 * has one attempt, which the rest of the inspector already shows: the table is left out then,
 * unless that attempt failed and another is due.
 */
import { useEffect, useState } from "react";
import type { Run } from "../../../../shared/resources/index.js";
import { absoluteTime, formatDuration } from "../../../state/format.js";
import { RUN_STATUS_LABELS, statusTone, waitText } from "./runText.js";

/** The clock, once a second: a countdown's. */
function useNow(): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    const t = setInterval(() => setNow(Date.now()), 1000);
    return () => clearInterval(t);
  }, []);
  return now;
}

/** "2026-11-22 00:31:05.123 (next attempt in 4 s)", for the inspector's meta list. */
export function WaitTime({ run, at }: { run: Run; at: number }) {
  const now = useNow();
  const wait = waitText(run, now);
  return (
    <>
      {absoluteTime(at)} {wait && <span className="muted">({wait.text})</span>}
    </>
  );
}

export function RunAttempts({ run }: { run: Run }) {
  const attempts = run.attempts ?? [];
  if (attempts.length === 0 || (attempts.length === 1 && run.status !== "retrying")) return null;
  const headingId = `attempts-${run.id}`;
  return (
    <section aria-labelledby={headingId}>
      <h4 id={headingId}>Attempts</h4>
      <table className="data-table run-attempts">
        <thead>
          <tr>
            <th scope="col">Attempt</th>
            <th scope="col">Started</th>
            <th scope="col">Took</th>
            <th scope="col">Outcome</th>
            <th scope="col">Error</th>
          </tr>
        </thead>
        <tbody>
          {attempts.map((a) => (
            <tr key={a.attempt}>
              <th scope="row">{a.attempt}</th>
              <td>{absoluteTime(a.started_at_ms)}</td>
              <td>
                {a.ended_at_ms === null ? "—" : formatDuration(Math.max(0, a.ended_at_ms - a.started_at_ms))}
              </td>
              <td>
                <span className={`status-chip tone-${statusTone(a.status)}`}>
                  {RUN_STATUS_LABELS[a.status]}
                </span>
              </td>
              <td className="attempt-error">
                {a.error ? (
                  <>
                    {a.error.step ? `Step ${a.error.step}: ` : ""}
                    {a.error.message}
                  </>
                ) : (
                  <span className="muted">none</span>
                )}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </section>
  );
}
