/** A row of tabs (role=tablist); arrow keys move between them. */
export function Tabs<T extends string>(props: {
  label: string;
  tabs: readonly { id: T; label: string }[];
  value: T;
  onChange: (id: T) => void;
}) {
  const { label, tabs, value, onChange } = props;
  return (
    <div role="tablist" aria-label={label} className="tabs">
      {tabs.map((t, i) => (
        <button
          key={t.id}
          type="button"
          role="tab"
          aria-selected={t.id === value}
          tabIndex={t.id === value ? 0 : -1}
          className={t.id === value ? "tab active" : "tab"}
          onClick={() => onChange(t.id)}
          onKeyDown={(e) => {
            const d = e.key === "ArrowRight" ? 1 : e.key === "ArrowLeft" ? -1 : 0;
            if (!d) return;
            const next = tabs[(i + d + tabs.length) % tabs.length];
            if (next) onChange(next.id);
          }}
        >
          {t.label}
        </button>
      ))}
    </div>
  );
}
