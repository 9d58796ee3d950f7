/**
 * JSON in the code editor (a test event typed by hand): highlighted by a small stream tokenizer
 * (no grammar package for one format), and marked where `JSON.parse` stops, with its message in
 * words and the line and column it names.
 */
import { StreamLanguage, type StringStream } from "@codemirror/language";
import type { Diagnostic } from "@codemirror/lint";
import type { Text } from "@codemirror/state";
import type { EditorView } from "@codemirror/view";

/** A string token followed by `:` is a key (the stream looks ahead on the same line). */
function token(stream: StringStream): string | null {
  if (stream.eatSpace()) return null;
  if (stream.match(/^"(?:[^"\\]|\\.)*"?/))
    return stream.match(/^\s*:/, false) ? "propertyName.definition" : "string";
  if (stream.match(/^-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?/)) return "number";
  if (stream.match(/^(?:true|false)\b/)) return "bool";
  if (stream.match(/^null\b/)) return "atom";
  if (stream.match(/^[{}[\],:]/)) return "punctuation";
  stream.next();
  return "invalid";
}

export const jsonLanguage = StreamLanguage.define({ name: "json", token });

/** Where JSON text does not parse: `null` when it does. Line and column are 1-based. */
export function jsonProblem(
  text: string,
): { offset: number; line: number; column: number; message: string } | null {
  try {
    JSON.parse(text);
    return null;
  } catch (err) {
    const raw = err instanceof Error ? err.message : String(err);
    const at = /at position (\d+)/.exec(raw);
    const offset = at ? Math.min(Number(at[1]), text.length) : validPrefix(text);
    const before = text.slice(0, offset).split("\n");
    const line = before.length;
    const column = before[before.length - 1]!.length + 1;
    // The engine's words without its own position (said once, as line and column).
    const message =
      raw
        .replace(/\s*(?:in JSON )?at position \d+.*$/, "")
        .replace(/, ".*" is not valid JSON$/s, "")
        .replace(/\s*\(line \d+ column \d+\)$/, "") || "Not valid JSON";
    return {
      offset,
      line,
      column,
      message: text.trim() === "" ? "Empty: type a JSON value, e.g. {}" : message,
    };
  }
}

/**
 * Where the text stops being the start of some JSON value, for an engine message that names no
 * position ("Unexpected token 'x'"): the longest prefix that only lacks its end (a typed event
 * is small, so the ~log2(n) parses cost nothing).
 */
function validPrefix(text: string): number {
  const open = (n: number) => {
    try {
      JSON.parse(text.slice(0, n));
      return true;
    } catch (err) {
      // It failed only for lack of what follows: at its end, or with no more text to read.
      const msg = err instanceof Error ? err.message : "";
      const at = /at position (\d+)/.exec(msg);
      return at ? Number(at[1]) >= n : /end of JSON input|Unterminated/.test(msg);
    }
  };
  let lo = 0;
  let hi = text.length;
  while (lo < hi) {
    const mid = Math.ceil((lo + hi) / 2);
    if (open(mid)) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

export function jsonDiagnostics(view: EditorView): Diagnostic[] {
  const doc: Text = view.state.doc;
  const p = jsonProblem(doc.toString());
  if (!p) return [];
  const from = Math.min(p.offset, doc.length);
  return [
    {
      from,
      to: Math.min(from + 1, doc.length),
      severity: "error",
      message: `Line ${p.line}, column ${p.column}: ${p.message}`,
      source: "JSON",
    },
  ];
}
