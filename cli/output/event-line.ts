/**
 * One event as one line for people: clock time, id, channel when not the default, then what a
 * reader wants first: a `$logs` message, an `$errors` code and message, the emit's `summary`,
 * or the event as compact JSON. The whole event is on the line: `--json` is for machines, this for grep.
 */
import type { EventSummary } from "../../shared/resources/index.js";
import { clockTime } from "./time.js";
import type { Style } from "./style.js";

export function eventLine(e: EventSummary, style: Style): string {
  const channel = e.metadata.name;
  const head = `${style.dim(clockTime(e.indexed_at_ms))} ${style.dim(e.id)}`;
  let tag = "";
  let body: string;
  if (channel === "$logs") {
    const log = e.event as { level?: unknown; message?: unknown };
    const level = typeof log?.level === "string" ? log.level : "log";
    tag = level === "error" || level === "warn" ? style.yellow(level) : style.cyan(level);
    body = typeof log?.message === "string" ? log.message : compact(e.event);
  } else if (channel === "$errors") {
    const err = (e.event as { error?: { code?: unknown; message?: unknown } })?.error;
    tag = style.red("error");
    body = err && typeof err.message === "string" ? `${typeof err.code === "string" ? `${err.code}: ` : ""}${err.message}` : compact(e.event);
  } else {
    if (channel !== "") tag = style.cyan(channel);
    body = typeof e.metadata.summary === "string" && e.metadata.summary !== "" ? `${e.metadata.summary}  ${style.dim(compact(e.event))}` : compact(e.event);
  }
  return `${head} ${tag ? tag + " " : ""}${body.replace(/\s*\n\s*/g, " ")}`;
}

function compact(value: unknown): string {
  try {
    return JSON.stringify(value) ?? "undefined";
  } catch {
    return String(value);
  }
}
