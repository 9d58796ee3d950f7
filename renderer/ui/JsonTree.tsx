import { useState } from "react";

/**
 * A collapsible JSON tree. Objects and arrays open to `openDepth` levels; deeper ones open on
 * click, so a large event renders only what is looked at.
 */
export function JsonTree(props: { value: unknown; openDepth?: number; label?: string }) {
  return (
    <div className="json-tree" role="tree" aria-label={props.label ?? "JSON"}>
      <JsonNode name={null} value={props.value} depth={0} openDepth={props.openDepth ?? 2} />
    </div>
  );
}

const MAX_CHILDREN = 500;

function JsonNode(props: { name: string | null; value: unknown; depth: number; openDepth: number }) {
  const { name, value, depth, openDepth } = props;
  const [open, setOpen] = useState(depth < openDepth);
  const isObj = value !== null && typeof value === "object";
  const keyLabel = name !== null ? <span className="json-key">{name}: </span> : null;
  if (!isObj) {
    return (
      <div role="treeitem" aria-selected={false} className="json-row" style={{ paddingLeft: depth * 14 }}>
        {keyLabel}
        <Scalar value={value} />
      </div>
    );
  }
  const entries: [string, unknown][] = Array.isArray(value)
    ? value.map((v, i) => [String(i), v])
    : Object.entries(value as Record<string, unknown>);
  const brackets = Array.isArray(value) ? ["[", "]"] : ["{", "}"];
  const shown = entries.slice(0, MAX_CHILDREN);
  const count = `${entries.length} ${Array.isArray(value) ? "item" : "key"}${entries.length === 1 ? "" : "s"}`;
  return (
    <div role="treeitem" aria-expanded={open} aria-selected={false}>
      <button
        type="button"
        className="json-row json-toggle"
        style={{ paddingLeft: depth * 14 }}
        onClick={() => setOpen(!open)}
        // A closed node shows its count: the name says it too (WCAG 2.5.3, label in name).
        aria-label={`${open ? "Collapse" : "Expand"} ${name ?? "root"}${open || entries.length === 0 ? "" : `: ${count}`}`}
      >
        <span className="json-caret" aria-hidden="true">
          {open ? "▾" : "▸"}
        </span>
        {keyLabel}
        <span className="json-punct">
          {brackets[0]}
          {!open && (entries.length > 0 ? ` ${count} ` : "")}
          {!open && brackets[1]}
        </span>
      </button>
      {open && (
        <div role="group">
          {shown.map(([k, v]) => (
            <JsonNode key={k} name={k} value={v} depth={depth + 1} openDepth={openDepth} />
          ))}
          {entries.length > shown.length && (
            <div className="json-row muted" style={{ paddingLeft: (depth + 1) * 14 }}>
              … {entries.length - shown.length} more (copy as JSON to see all)
            </div>
          )}
          <div className="json-row json-punct" style={{ paddingLeft: depth * 14 }}>
            {brackets[1]}
          </div>
        </div>
      )}
    </div>
  );
}

function Scalar({ value }: { value: unknown }) {
  if (typeof value === "string") return <span className="json-string">{JSON.stringify(value)}</span>;
  if (typeof value === "number") return <span className="json-number">{String(value)}</span>;
  if (typeof value === "boolean") return <span className="json-bool">{String(value)}</span>;
  if (value === null) return <span className="json-null">null</span>;
  return <span className="json-null">{String(value)}</span>;
}
