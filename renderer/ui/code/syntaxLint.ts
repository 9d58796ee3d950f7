/**
 * Syntax errors as you type: the JavaScript parser that highlights the code (Lezer's, error
 * tolerant) marks what it could not parse; each first error of a run of them is one diagnostic.
 * Problems the server found (a draft's `problems`, by line and column) are shown the same way.
 */
import { syntaxTree } from "@codemirror/language";
import type { Diagnostic } from "@codemirror/lint";
import type { EditorView } from "@codemirror/view";

/** A problem located by 1-based line and column, as the API reports it. */
export interface CodeProblem {
  line: number | null;
  column: number | null;
  message: string;
}

export function syntaxDiagnostics(view: EditorView): Diagnostic[] {
  const found: Diagnostic[] = [];
  let lastEnd = -1;
  syntaxTree(view.state).cursor().iterate((node) => {
    if (!node.type.isError) return;
    // One diagnostic per place: the parser reports a cascade of error nodes after a mistake.
    if (node.from <= lastEnd) return;
    const from = node.from;
    const to = Math.min(Math.max(node.to, from + 1), view.state.doc.length);
    lastEnd = Math.max(to, from);
    const line = view.state.doc.lineAt(from);
    found.push({
      from: Math.min(from, to),
      to,
      severity: "error",
      message: `Syntax error at line ${line.number}, column ${from - line.from + 1}`,
      source: "JavaScript",
    });
  });
  return found;
}

export function problemDiagnostics(view: EditorView, problems: readonly CodeProblem[]): Diagnostic[] {
  const doc = view.state.doc;
  return problems.map((p) => {
    const line = doc.line(Math.min(Math.max(p.line ?? 1, 1), doc.lines));
    const from = Math.min(line.from + Math.max((p.column ?? 1) - 1, 0), line.to);
    return { from, to: Math.min(Math.max(from + 1, line.to), doc.length), severity: "error", message: p.message, source: "Server" };
  });
}
