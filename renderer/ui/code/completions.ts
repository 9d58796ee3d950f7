/**
 * Completions for a step's code: the methods of `$` a step calls (respond, export, send.emit,
 * flow.exit, flow.delay, summary) and `steps.<name>` of the steps that run before it.
 */
import type { Completion, CompletionContext, CompletionResult } from "@codemirror/autocomplete";

/** What follows `$.` (the dotted ones complete as a whole: `$.flow.` narrows to its two). */
const DOLLAR: Completion[] = [
  { label: "respond", type: "method", detail: "({status, headers, body})", info: "Answer the workflow's HTTP request" },
  { label: "export", type: "method", detail: "(name, value)", info: "Export a value under this step's name" },
  { label: "send.emit", type: "method", detail: "({raw_event})", info: "Emit an event from the workflow" },
  { label: "flow.exit", type: "method", detail: "(reason?)", info: "End the run here; later steps are skipped" },
  { label: "flow.delay", type: "method", detail: "(ms)", info: "Go on with the next step after a delay" },
  { label: "summary", type: "property", info: "A line shown for this step in the run inspector" },
];

/** A completion source given the names of the steps before the one being edited. */
export function stepCompletions(earlierSteps: () => readonly string[]) {
  return (ctx: CompletionContext): CompletionResult | null => {
    const dollar = ctx.matchBefore(/\$\.[\w.]*$/);
    if (dollar) return { from: dollar.from + 2, options: DOLLAR, validFor: /^[\w.]*$/ };
    const step = ctx.matchBefore(/\bsteps\.\w*$/);
    if (step) {
      const options = ["trigger", ...earlierSteps()].map(
        (name): Completion => ({ label: name, type: "variable", info: name === "trigger" ? "The event that started the run" : `What step ${name} returned and exported` }),
      );
      return { from: step.from + "steps.".length, options, validFor: /^\w*$/ };
    }
    return null;
  };
}
