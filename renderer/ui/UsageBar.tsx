/** Usage against a quota, as a labelled progressbar. */
export function UsageBar(props: {
  label: string;
  used: number;
  quota: number;
  format: (n: number) => string;
}) {
  const { label, used, quota, format } = props;
  const pct = quota > 0 ? Math.min(100, (used / quota) * 100) : 0;
  const level = pct >= 90 ? "danger" : pct >= 70 ? "warn" : "ok";
  return (
    <div className="usage">
      <div className="usage-head">
        <span>{label}</span>
        <span className="muted">
          {format(used)} of {format(quota)} ({pct.toFixed(0)}%)
        </span>
      </div>
      <div
        className="usage-track"
        role="progressbar"
        aria-label={label}
        aria-valuemin={0}
        aria-valuemax={quota}
        aria-valuenow={used}
        aria-valuetext={`${format(used)} of ${format(quota)}`}
      >
        <div className={`usage-fill ${level}`} style={{ width: `${pct}%` }} />
      </div>
    </div>
  );
}
