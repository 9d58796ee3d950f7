/**
 * Where a command writes: results on stdout (a table for people, or with `--json` one JSON
 * object per line for `jq`), status and errors on stderr so that piping stdout stays clean.
 */
import { renderFields, renderTable, type Column } from "./table.js";
import { colourWanted, createStyle, type Style } from "./style.js";

export interface Output {
  readonly json: boolean;
  /** Colours for stdout. */
  readonly style: Style;
  /** Colours for stderr. */
  readonly errStyle: Style;
  readonly stdout: NodeJS.WriteStream;
  readonly stderr: NodeJS.WriteStream;
  /** One JSON object, one line. */
  jsonLine(value: unknown): void;
  /** Rows as a table, or one JSON line per row. */
  rows<T>(rows: T[], columns: Column<T>[], toJson?: (row: T) => unknown): void;
  /** Key/value lines, or one JSON object. */
  fields(fields: Array<[string, string]>, json: unknown): void;
  /** A result line for people (nothing in JSON mode: the caller prints JSON instead). */
  say(line: string): void;
  /** A status line on stderr (in both modes). */
  info(line: string): void;
}

export function createOutput(json: boolean, stdout = process.stdout, stderr = process.stderr): Output {
  const style = createStyle(colourWanted(stdout));
  const errStyle = createStyle(colourWanted(stderr));
  const jsonLine = (value: unknown) => stdout.write(JSON.stringify(value) + "\n");
  return {
    json,
    style,
    errStyle,
    stdout,
    stderr,
    jsonLine,
    rows(rows, columns, toJson) {
      if (json) {
        for (const r of rows) jsonLine(toJson ? toJson(r) : r);
        return;
      }
      stdout.write(rows.length === 0 ? style.dim("(none)") + "\n" : renderTable(rows, columns, style));
    },
    fields(fields, value) {
      if (json) jsonLine(value);
      else stdout.write(renderFields(fields, style));
    },
    say(line) {
      if (!json) stdout.write(line + "\n");
    },
    info(line) {
      stderr.write(line + "\n");
    },
  };
}
