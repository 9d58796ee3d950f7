/**
 * Event volume above the event table: events and errors per bucket from the server's stats
 * (`GET /sources|workflows/{id}/stats`), last hour by default, 24 h and 7 d ranges. It follows
 * live traffic: a new row in the live feed refetches the stats (at most once a second), and
 * the window slides on a timer. The counts are the server's (counted as events are appended),
 * so they are right whatever the table has loaded or retention has dropped.
 */
import { useQuery } from "@tanstack/react-query";
import { useEffect, useRef, useState } from "react";
import { call } from "../../state/bridge.js";
import { useLiveFeed } from "../../state/liveFeed.js";
import { formatNumber } from "../../state/format.js";
import { ErrorNote } from "../../ui/ErrorNote.js";
import type { EmitterKind } from "./EventDetail.js";
import { VolumeCanvas } from "./VolumeCanvas.js";
import { VOLUME_RANGES, volumeLabel, volumeTotals, type VolumePoint, type VolumeRange } from "./volume.js";

const RANGE_ORDER: VolumeRange[] = ["1h", "24h", "7d"];
const EMPTY: VolumePoint[] = [];

async function loadVolume(kind: EmitterKind, id: string, range: VolumeRange): Promise<VolumePoint[]> {
  const r = VOLUME_RANGES[range];
  const until = Date.now();
  const q = { since: until - r.ms, until, bucket: r.bucket };
  const stats = kind === "source" ? await call("getSourceStats", id, q) : await call("getWorkflowStats", id, q);
  return stats.series.map((b) => ({ t: b.t, events: b.events, errors: b.errors }));
}

export function VolumeChart(props: { kind: EmitterKind; emitterId: string }) {
  const { kind, emitterId } = props;
  const [range, setRange] = useState<VolumeRange>("1h");
  const r = VOLUME_RANGES[range];
  const stats = useQuery({
    queryKey: ["stats", kind, emitterId, range],
    queryFn: () => loadVolume(kind, emitterId, range),
    refetchInterval: r.refreshMs,
    retry: false,
  });
  useRefetchOnLiveRows(() => void stats.refetch());

  const points = stats.data ?? EMPTY;
  const totals = volumeTotals(points);
  const label = stats.data ? volumeLabel(range, points) : `Event volume, ${r.words}: loading`;
  return (
    <section className="volume" aria-label="Volume">
      <header className="volume-head">
        <h3>Volume</h3>
        <span className="volume-legend" aria-hidden="true">
          <i className="swatch events" /> {formatNumber(totals.events)} {totals.events === 1 ? "event" : "events"}
          <i className="swatch errors" /> {formatNumber(totals.errors)} {totals.errors === 1 ? "error" : "errors"}
        </span>
        <span className="spacer" />
        <div className="segmented" role="group" aria-label="Volume range">
          {RANGE_ORDER.map((id) => (
            <button
              key={id}
              type="button"
              className={id === range ? "seg active" : "seg"}
              aria-pressed={id === range}
              title={`Show the ${VOLUME_RANGES[id].words}`}
              onClick={() => setRange(id)}
            >
              {VOLUME_RANGES[id].label}
            </button>
          ))}
        </div>
      </header>
      {stats.error ? (
        <ErrorNote error={stats.error} title="Could not load the event volume" onRetry={() => void stats.refetch()} />
      ) : (
        <div role="img" aria-label={label} aria-busy={!stats.data} className="volume-chart">
          <VolumeCanvas points={points} bucket={r.bucket} />
        </div>
      )}
    </section>
  );
}

/** Calls `refetch` when the live feed gets new rows: at once, then at most once a second. */
function useRefetchOnLiveRows(refetch: () => void) {
  const newest = useLiveFeed((s) => s.rows[0]?.id ?? "");
  const pending = useLiveFeed((s) => s.pending.length);
  const last = useRef(0);
  const timer = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);
  const latest = useRef(refetch);
  useEffect(() => {
    latest.current = refetch;
  });
  const first = useRef(true);
  useEffect(() => {
    // The first render is the query's own load.
    if (first.current) {
      first.current = false;
      return;
    }
    if (timer.current) return;
    const wait = Math.max(0, last.current + 1000 - Date.now());
    timer.current = setTimeout(() => {
      timer.current = undefined;
      last.current = Date.now();
      latest.current();
    }, wait);
  }, [newest, pending]);
  useEffect(() => () => clearTimeout(timer.current), []);
}
