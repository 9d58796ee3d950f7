/**
 * The event chosen for tests: one of the recent trigger events, a run's event, or JSON typed in
 * the panel. Until a choice is made the newest trigger event is taken (as the server's own
 * default), else `{}` typed. Resolved to the event itself, or to why there is none to test on.
 */
import { useState } from "react";
import { jsonProblem } from "../../../../ui/code/json.js";
import { eventKey } from "./testModel.js";
import { useEventOptions, type EventOption } from "./eventChoices.js";

export type EventMode = "recent" | "run" | "json";

export interface EventChoice {
  mode: EventMode;
  /** The option picked in the recent or runs list (null: the first). */
  recent: string | null;
  run: string | null;
  json: string;
}

export type ResolvedEvent =
  { ok: true; event: unknown; key: string; option: EventOption | null } | { ok: false; reason: string };

function resolve(
  choice: EventChoice,
  recent: readonly EventOption[],
  runs: readonly EventOption[],
): ResolvedEvent {
  if (choice.mode === "json") {
    const p = jsonProblem(choice.json);
    if (p)
      return {
        ok: false,
        reason: `The test event is not valid JSON (line ${p.line}, column ${p.column}: ${p.message}).`,
      };
    const event: unknown = JSON.parse(choice.json);
    return { ok: true, event, key: eventKey(event), option: null };
  }
  const list = choice.mode === "recent" ? recent : runs;
  const picked = choice.mode === "recent" ? choice.recent : choice.run;
  const option = list.find((o) => o.value === picked) ?? list[0];
  if (!option)
    return {
      ok: false,
      reason:
        choice.mode === "recent"
          ? "No recent trigger event: choose a run's event or type one."
          : "No run yet: choose another event.",
    };
  return { ok: true, event: option.event, key: eventKey(option.event), option };
}

export function useTestEvent(workflowId: string) {
  const options = useEventOptions(workflowId);
  const [chosen, setChosen] = useState<EventChoice | null>(null);
  const choice: EventChoice = chosen ?? {
    mode: options.loading || options.recent.length > 0 ? "recent" : "json",
    recent: null,
    run: null,
    json: "{}",
  };
  const resolved: ResolvedEvent = options.loading
    ? { ok: false, reason: "Loading the events to test on…" }
    : resolve(choice, options.recent, options.runs);
  /** A new mode starts from the event shown now (typed JSON starts as that event, to edit). */
  const setMode = (mode: EventMode) => {
    const json =
      mode === "json" && choice.mode !== "json" && resolved.ok
        ? JSON.stringify(resolved.event, null, 2)
        : choice.json;
    setChosen({ ...choice, mode, json });
  };
  const update = (patch: Partial<Omit<EventChoice, "mode">>) => setChosen({ ...choice, ...patch });
  return { options, choice, resolved, setMode, update };
}

export type TestEvent = ReturnType<typeof useTestEvent>;
