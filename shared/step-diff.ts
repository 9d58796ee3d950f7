/**
 * A workflow step as text, and a unified diff of two such texts: what the CLI's `workflows diff`
 * and `push` print and what the server's comparison of two runs answers (decisions.md "Building
 * workflows"), written once so that the two read alike. A code step's text is its code; an
 * action step's is its action's key and its props as JSON, one per line, so that a change of a
 * prop shows as the line it is on. A code step with configured props has them after its code,
 * the same way.
 *
 * The line diff is the `diff` package's (jsdiff: Myers' algorithm, the unified format that git
 * and patch read); its ranges are written as diff(1) writes them.
 */
import { structuredPatch } from "diff";

/** What a step's text is made of (a WorkflowStep, a file's step, a test run's recorded step). */
export interface StepSource {
  code: string;
  action?: string | undefined;
  props?: Record<string, unknown> | undefined;
  configured_props?: Record<string, unknown> | undefined;
}

/** A step as the text its diff is of: code as is (ending in a newline); an action as its key and props. */
export function stepText(s: StepSource): string {
  if (s.action === undefined) {
    const code = s.code.endsWith("\n") ? s.code : `${s.code}\n`;
    const configured = s.configured_props ?? {};
    return Object.keys(configured).length === 0
      ? code
      : `${code}---\nconfigured_props: ${JSON.stringify(configured, null, 2)}\n`;
  }
  return `action: ${s.action}\nprops: ${JSON.stringify(s.props ?? {}, null, 2)}\n`;
}

/** The hunks of a unified diff of `a` and `b`, with 3 lines of context, without a file header. */
export function unifiedHunks(a: string, b: string): string {
  const patch = structuredPatch("a", "b", a, b, undefined, undefined, { context: 3 });
  return patch.hunks
    .map((h) => {
      // As diff(1) writes them: an empty range names the line before it (`-0,0` for a new file).
      const range = (start: number, lines: number) =>
        lines === 1 ? `${start}` : `${lines === 0 ? start - 1 : start},${lines}`;
      return [`@@ -${range(h.oldStart, h.oldLines)} +${range(h.newStart, h.newLines)} @@`, ...h.lines].join(
        "\n",
      );
    })
    .join("\n");
}

/** A whole unified diff: `--- from` and `+++ to`, then the hunks (empty when the texts are equal). */
export function unifiedDiff(a: string, b: string, labels: { from: string; to: string }): string {
  if (a === b) return "";
  return `--- ${labels.from}\n+++ ${labels.to}\n${unifiedHunks(a, b)}\n`;
}
