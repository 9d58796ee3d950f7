/**
 * Completions for a step's code: the methods of `$` a step calls (respond, export, send.emit,
 * send.http, flow.exit, flow.delay), `steps.<name>` of the steps that run before it, and below a
 * name the paths of what it held in the last test (`steps.trigger.event.<key>` from the test
 * event, `steps.<name>.$return_value...` and its exports), as far down as those values go.
 */
import type { Completion, CompletionContext, CompletionResult } from "@codemirror/autocomplete";
import type { EditorView } from "@codemirror/view";

/** What follows `$.` (the dotted ones complete as a whole: `$.flow.` narrows to its two). */
const DOLLAR: Completion[] = [
  {
    label: "respond",
    type: "method",
    detail: "({status, headers, body})",
    info: "Answer the workflow's HTTP request",
  },
  { label: "export", type: "method", detail: "(name, value)", info: "Export a value under this step's name" },
  { label: "send.emit", type: "method", detail: "(data, channel?)", info: "Emit an event from the workflow" },
  {
    label: "send.http",
    type: "method",
    detail: "({url, method?, data?, headers?})",
    info: "Send an HTTP request once the run ends",
  },
  {
    label: "flow.exit",
    type: "method",
    detail: "(reason?)",
    info: "End the run here; later steps are skipped",
  },
  { label: "flow.delay", type: "method", detail: "(ms)", info: "Go on with the next step after a delay" },
];

const IDENT = /^[A-Za-z_$][\w$]*$/;
/** `steps`, then names and keys, each after a dot: the part being typed is last. */
const STEPS_PATH = /\bsteps(?:\.[A-Za-z_$][\w$]*)*\.[\w$]*$/;

/** A value in a word or two: the list's detail beside each key. */
function describe(v: unknown): string {
  if (v === null) return "null";
  if (Array.isArray(v)) return `array (${v.length})`;
  if (typeof v === "object") return `object (${Object.keys(v).length} keys)`;
  if (typeof v === "string") return v.length > 24 ? `"${v.slice(0, 24)}…"` : JSON.stringify(v);
  return String(v);
}

/** A key that is no identifier completes as `["key"]`, replacing the dot before it. */
function keyOption(key: string, value: unknown): Completion {
  if (IDENT.test(key)) return { label: key, type: "property", detail: describe(value) };
  const insert = `[${JSON.stringify(key)}]`;
  return {
    label: key,
    type: "property",
    detail: describe(value),
    apply: (view: EditorView, _c: Completion, from: number, to: number) =>
      view.dispatch({
        changes: { from: from - 1, to, insert },
        selection: { anchor: from - 1 + insert.length },
      }),
  };
}

/** The keys below `path` (names after `steps.`), or null when nothing is known there. */
function keysAt(
  path: string[],
  earlier: readonly string[],
  values: Readonly<Record<string, unknown>> | undefined,
): Completion[] | null {
  const [name, ...rest] = path;
  if (name !== "trigger" && !earlier.includes(name!)) return null;
  let at: unknown = values?.[name!];
  if (at === undefined) {
    // Nothing tested yet: what every step has.
    if (rest.length > 0) return null;
    return name === "trigger"
      ? [{ label: "event", type: "property", info: "The event that started the run" }]
      : [{ label: "$return_value", type: "property", info: `What step ${name} returned` }];
  }
  for (const key of rest) {
    if (at === null || typeof at !== "object" || Array.isArray(at) || !Object.hasOwn(at, key)) return null;
    at = (at as Record<string, unknown>)[key];
  }
  if (at === null || typeof at !== "object" || Array.isArray(at)) return null;
  return Object.entries(at as Record<string, unknown>).map(([k, v]) => keyOption(k, v));
}

/**
 * A completion source given the names of the steps before the one being edited and, optionally,
 * what each held in the last test (`{trigger: {event}, <name>: {$return_value, ...exports}}`).
 */
export function stepCompletions(
  earlierSteps: () => readonly string[],
  stepValues: () => Readonly<Record<string, unknown>> | undefined = () => undefined,
) {
  return (ctx: CompletionContext): CompletionResult | null => {
    const dollar = ctx.matchBefore(/\$\.[\w.]*$/);
    if (dollar) return { from: dollar.from + 2, options: DOLLAR, validFor: /^[\w.]*$/ };
    const match = ctx.matchBefore(STEPS_PATH);
    if (!match) return null;
    const parts = match.text.split(".").slice(1);
    const typed = parts.pop() ?? "";
    const from = match.to - typed.length;
    if (parts.length === 0) {
      const options = ["trigger", ...earlierSteps()].map((name): Completion => ({
        label: name,
        type: "variable",
        info:
          name === "trigger" ? "The event that started the run" : `What step ${name} returned and exported`,
      }));
      return { from, options, validFor: /^\w*$/ };
    }
    const options = keysAt(parts, earlierSteps(), stepValues());
    return options ? { from, options, validFor: /^[\w$]*$/ } : null;
  };
}
