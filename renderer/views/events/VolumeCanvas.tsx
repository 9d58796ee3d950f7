/**
 * The bars of the volume chart, drawn by uPlot (a canvas chart made for thousands of points; a
 * redraw of a week of hourly buckets costs well under a millisecond), with a tooltip of the
 * hovered bucket's counts. Events are the wide bars, errors narrower red ones in front.
 * The plot is made once per bucket size and fed new data in place, so live updates do not
 * flicker or lose the hovered bucket.
 */
import { useEffect, useRef, useState } from "react";
import uPlot from "uplot";
import { useTheme } from "../../app/theme.js";
import { BUCKET_MS, bucketText, type VolumeBucket, type VolumePoint } from "./volume.js";
import { formatClock, formatDay } from "../../state/format.js";

const HEIGHT = 130;

interface Hover {
  idx: number;
  left: number;
  top: number;
  /** Which side of the cursor the tooltip goes: away from the nearer edge. */
  side: "left" | "right";
}

/** Whether this document can draw on a canvas (test DOMs cannot; browsers and Electron can). */
function canDraw(): boolean {
  try {
    return !!document.createElement("canvas").getContext("2d");
  } catch {
    return false;
  }
}

function toData(points: readonly VolumePoint[]): uPlot.AlignedData {
  return [points.map((p) => p.t), points.map((p) => p.events), points.map((p) => p.errors)];
}

function cssVar(el: Element, name: string, fallback: string): string {
  return getComputedStyle(el).getPropertyValue(name).trim() || fallback;
}

const compact = new Intl.NumberFormat("en-US", { notation: "compact", maximumFractionDigits: 1 });

function options(el: HTMLElement, bucket: VolumeBucket, onHover: (h: Hover | null) => void): uPlot.Options {
  const accent = cssVar(el, "--accent", "#2f6fde");
  const danger = cssVar(el, "--danger", "#c8372d");
  const muted = cssVar(el, "--muted", "#66707c");
  const grid = cssVar(el, "--border", "#e1e5ea");
  const half = BUCKET_MS[bucket] / 2;
  const axis = { stroke: muted, grid: { stroke: grid, width: 1 }, ticks: { stroke: grid, width: 1, size: 4 }, font: "11px system-ui, sans-serif" };
  return {
    width: Math.max(100, el.clientWidth),
    height: HEIGHT,
    ms: 1,
    legend: { show: false },
    cursor: { y: false, points: { show: false }, drag: { x: false, y: false } },
    scales: {
      // Half a bucket either side, so the first and last bars are whole.
      x: { time: true, range: (_u, min, max) => [min - half, max + half] },
      y: { range: (_u, _min, max) => [0, max > 0 ? Math.ceil(max * 1.15) : 1] },
    },
    axes: [
      // The dashboard's one format (state/format.ts), not uPlot's own ("1:15am", "12/7").
      { ...axis, space: 60, values: (_u, splits) => splits.map(timeTick) },
      {
        ...axis,
        size: 44,
        // Whole numbers only: these are counts.
        incrs: [1, 2, 5, 10, 20, 50, 100, 200, 500, 1e3, 2e3, 5e3, 1e4, 2e4, 5e4, 1e5, 2e5, 5e5, 1e6],
        values: (_u, splits) => splits.map((v) => compact.format(v)),
      },
    ],
    series: [
      {},
      { label: "Events", fill: accent, stroke: accent, width: 0, paths: uPlot.paths.bars!({ size: [0.8, 40], gap: 1 }), points: { show: false } },
      { label: "Errors", fill: danger, stroke: danger, width: 0, paths: uPlot.paths.bars!({ size: [0.45, 20] }), points: { show: false } },
    ],
    hooks: {
      setCursor: [
        (u) => {
          const idx = u.cursor.idx;
          const left = u.cursor.left ?? -1;
          // At the top of the plot, beside the cursor: it never leaves the chart or covers the bar.
          onHover(
            idx === null || idx === undefined || left < 0
              ? null
              : { idx, left: left + u.over.offsetLeft, top: u.over.offsetTop + 4, side: left > u.over.clientWidth / 2 ? "left" : "right" },
          );
        },
      ],
    },
  };
}

export function VolumeCanvas(props: { points: readonly VolumePoint[]; bucket: VolumeBucket }) {
  const { points, bucket } = props;
  const host = useRef<HTMLDivElement>(null);
  const plot = useRef<uPlot | null>(null);
  const latest = useRef(points);
  const [hover, setHover] = useState<Hover | null>(null);
  // The canvas takes its colours from the theme's tokens when drawn: a new theme draws it again.
  const theme = useTheme((s) => s.resolved);

  // Before the effect that makes the plot: on mount the plot starts from these points.
  useEffect(() => {
    latest.current = points;
    plot.current?.setData(toData(points));
  }, [points]);

  useEffect(() => {
    const el = host.current;
    if (!el || !canDraw()) return;
    const u = new uPlot(options(el, bucket, setHover), toData(latest.current), el);
    plot.current = u;
    const resize = new ResizeObserver(() => {
      if (el.clientWidth > 0 && el.clientWidth !== u.width) u.setSize({ width: el.clientWidth, height: HEIGHT });
    });
    resize.observe(el);
    return () => {
      resize.disconnect();
      u.destroy();
      plot.current = null;
      setHover(null);
    };
  }, [bucket, theme]);

  const p = hover ? points[hover.idx] : undefined;
  const text = p ? bucketText(p, bucket) : undefined;
  return (
    <div className="volume-plot" ref={host} style={{ minHeight: HEIGHT }}>
      {text && hover && (
        <div
          className="volume-tooltip"
          role="tooltip"
          style={{ left: hover.left, top: hover.top }}
          data-side={hover.side}
        >
          <strong>{text.when}</strong>
          <span>
            <i className="swatch events" aria-hidden="true" />
            {text.events}
          </span>
          <span>
            <i className="swatch errors" aria-hidden="true" />
            {text.errors}
          </span>
        </div>
      )}
    </div>
  );
}

/** An x-axis tick: "01:15", or the day ("Dec 7") at midnight. */
function timeTick(ms: number): string {
  const d = new Date(ms);
  return d.getHours() === 0 && d.getMinutes() === 0 ? formatDay(ms) : formatClock(ms, "minutes");
}
