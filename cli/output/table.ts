/** Aligned columns for people: a header, then one row per item, padded to the widest cell. */
import { visibleLength, type Style } from "./style.js";

export interface Column<T> {
  header: string;
  cell: (row: T) => string;
}

export function renderTable<T>(rows: T[], columns: Column<T>[], style: Style): string {
  const cells = rows.map((r) => columns.map((c) => oneLine(c.cell(r))));
  const widths = columns.map((c, i) => Math.max(c.header.length, ...cells.map((row) => visibleLength(row[i]!))));
  const line = (values: string[]) =>
    values
      .map((v, i) => (i === values.length - 1 ? v : v + " ".repeat(widths[i]! - visibleLength(v))))
      .join("  ")
      .trimEnd();
  const header = style.bold(line(columns.map((c) => c.header)));
  return [header, ...cells.map(line)].join("\n") + "\n";
}

/** Key/value lines (`whoami`): the keys aligned. */
export function renderFields(fields: Array<[string, string]>, style: Style): string {
  const width = Math.max(...fields.map(([k]) => k.length));
  return fields.map(([k, v]) => `${style.dim(k.padEnd(width))}  ${v}`).join("\n") + "\n";
}

function oneLine(s: string): string {
  return s.replace(/\s*\n\s*/g, " ");
}
