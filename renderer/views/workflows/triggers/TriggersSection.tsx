/**
 * A workflow's triggers in its settings (decisions.md "Workflow triggers"): its schedules (a cron
 * in a time zone, or an interval), the next ticks the server computes for them, and its
 * endpoint's auth (EndpointAuth.tsx). Saving schedules makes a new version, sent with the version
 * it was edited at (`base_version`): a change made meanwhile elsewhere is a 409 to reload, not an
 * overwrite. A server without schedules (older, or the hosted service) gets a sentence instead.
 */
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import type { Workflow } from "../../../../shared/resources/index.js";
import { BridgeCallError, call } from "../../../state/bridge.js";
import { keys } from "../../../state/queries.js";
import { ErrorNote } from "../../../ui/ErrorNote.js";
import { toast } from "../../../ui/Toasts.js";
import { EndpointAuth } from "./EndpointAuth.js";
import {
  errorsByRow,
  MAX_WORKFLOW_SCHEDULES,
  newRow,
  rowOf,
  schedulesOf,
  timeZones,
  type ScheduleRow,
} from "./scheduleForm.js";

export const ticksKey = (id: string) => ["workflow", id, "ticks"] as const;

export function TriggersSection({ workflow: w }: { workflow: Workflow }) {
  if (w.schedules === undefined)
    return (
      <section className="form-section" aria-labelledby={`triggers-${w.id}`}>
        <h3 id={`triggers-${w.id}`}>Triggers</h3>
        <p className="muted">This server has no schedules or endpoint auth for workflows.</p>
      </section>
    );
  return (
    <section className="form-section triggers" aria-labelledby={`triggers-${w.id}`}>
      <h3 id={`triggers-${w.id}`}>Triggers</h3>
      <Schedules key={`${w.id}@${w.version}`} workflow={w} />
      <NextTicks workflow={w} />
      <EndpointAuth workflow={w} />
    </section>
  );
}

function Schedules({ workflow: w }: { workflow: Workflow }) {
  const qc = useQueryClient();
  const [rows, setRows] = useState<ScheduleRow[]>(() => (w.schedules ?? []).map(rowOf));
  const [errors, setErrors] = useState<Record<number, string>>({});
  const [zones] = useState(timeZones);
  const save = useMutation({
    mutationFn: (edited: ScheduleRow[]) => {
      const parsed = schedulesOf(edited);
      if ("errors" in parsed) throw parsed;
      return call("updateWorkflow", w.id, {
        schedules: parsed.schedules,
        ...(w.version ? { base_version: w.version } : {}),
      });
    },
    onSuccess: (saved) => {
      qc.setQueryData(keys.workflow(w.id), saved);
      void qc.invalidateQueries({ queryKey: ["workflows"] });
      void qc.invalidateQueries({ queryKey: ticksKey(w.id) });
      toast(`Schedules saved as version ${saved.version ?? ""}`.trim());
    },
    onError: (err) => {
      if (err && typeof err === "object" && "errors" in err)
        setErrors((err as { errors: Record<number, string> }).errors);
      else if (err instanceof BridgeCallError && err.details?.length) setErrors(errorsByRow(err.details));
    },
  });
  const edit = (i: number, patch: Partial<ScheduleRow>) => {
    setRows((rs) => rs.map((r, j) => (j === i ? { ...r, ...patch } : r)));
    setErrors(({ [i]: _gone, ...rest }) => rest);
  };
  const dirty = JSON.stringify(rows) !== JSON.stringify((w.schedules ?? []).map(rowOf));
  const busy = save.isPending;
  const formError = save.error instanceof BridgeCallError && !save.error.details?.length ? save.error : null;
  return (
    <form
      className="schedules"
      aria-label="Schedules"
      noValidate
      onSubmit={(e) => {
        e.preventDefault();
        save.reset();
        save.mutate(rows);
      }}
    >
      <h4>Schedules</h4>
      <p className="hint">
        Each tick starts a run (trigger SCHEDULE) while the workflow is active. A cron follows its time
        zone&apos;s daylight saving; ticks missed while the server was stopped are not made up.
      </p>
      <datalist id={`zones-${w.id}`}>
        {zones.map((z) => (
          <option key={z} value={z} />
        ))}
      </datalist>
      {rows.length === 0 && <p className="muted">No schedules: runs start from requests and events only.</p>}
      <ol className="schedule-rows">
        {rows.map((r, i) => (
          <li key={i} className={errors[i] ? "schedule-row invalid" : "schedule-row"}>
            {r.kind === "cron" ? (
              <>
                <label>
                  <span>Cron (schedule {i + 1})</span>
                  <input
                    className="mono"
                    value={r.cron}
                    disabled={busy}
                    spellCheck={false}
                    aria-invalid={!!errors[i]}
                    onChange={(e) => edit(i, { cron: e.target.value })}
                  />
                </label>
                <label>
                  <span>Time zone</span>
                  <input
                    list={`zones-${w.id}`}
                    value={r.timezone}
                    disabled={busy}
                    spellCheck={false}
                    onChange={(e) => edit(i, { timezone: e.target.value })}
                  />
                </label>
              </>
            ) : (
              <label>
                <span>Every (seconds, schedule {i + 1})</span>
                <input
                  inputMode="numeric"
                  value={r.interval}
                  disabled={busy}
                  aria-invalid={!!errors[i]}
                  onChange={(e) => edit(i, { interval: e.target.value })}
                />
              </label>
            )}
            <button
              type="button"
              className="btn small"
              disabled={busy}
              onClick={() => setRows((rs) => rs.filter((_, j) => j !== i))}
            >
              Remove schedule {i + 1}
            </button>
            {errors[i] && (
              <div className="field-error" role="alert">
                Schedule {i + 1}: {errors[i]}
              </div>
            )}
          </li>
        ))}
      </ol>
      <div className="actions">
        <button
          type="button"
          className="btn small"
          disabled={busy || rows.length >= MAX_WORKFLOW_SCHEDULES}
          onClick={() => setRows((rs) => [...rs, newRow("cron")])}
        >
          Add cron
        </button>
        <button
          type="button"
          className="btn small"
          disabled={busy || rows.length >= MAX_WORKFLOW_SCHEDULES}
          onClick={() => setRows((rs) => [...rs, newRow("interval")])}
        >
          Add interval
        </button>
        <button type="submit" className="btn primary small" disabled={busy || !dirty}>
          Save schedules
        </button>
      </div>
      <ErrorNote error={formError} title="Could not save the schedules" onDismiss={() => save.reset()} />
    </form>
  );
}

function NextTicks({ workflow: w }: { workflow: Workflow }) {
  const ticks = useQuery({
    queryKey: ticksKey(w.id),
    queryFn: () => call("nextScheduleTicks", w.id, 5),
    enabled: (w.schedules ?? []).length > 0,
    // The list moves on as ticks pass.
    refetchInterval: 30_000,
  });
  if ((w.schedules ?? []).length === 0) return null;
  return (
    <div className="next-ticks">
      <h4>Next ticks</h4>
      {!w.active && <p className="muted">Inactive: these ticks run only once the workflow is turned on.</p>}
      {ticks.error ? (
        <ErrorNote
          error={ticks.error}
          title="Could not read the next ticks"
          onRetry={() => void ticks.refetch()}
        />
      ) : (
        <ol aria-label="Next ticks">
          {(ticks.data ?? []).map((t) => (
            <li key={`${t.schedule}-${t.at_ms}`}>
              <time dateTime={t.at}>
                {t.local.weekday} {t.local.date}{" "}
                {t.local.time.endsWith(":00") ? t.local.time.slice(0, 5) : t.local.time}
              </time>{" "}
              <span className="muted">
                {t.timezone} (UTC{t.local.offset}), schedule {t.schedule + 1}
              </span>
            </li>
          ))}
        </ol>
      )}
    </div>
  );
}
