/**
 * A workflow's settings: how its endpoint answers HTTP callers (`http_response`), its triggers
 * (schedules and endpoint auth: triggers/TriggersSection.tsx), and its
 * execution controls (ExecutionControls.tsx, saved with a button). The answer mode's change is
 * saved at once, shown at once, and rolled back with the error if the server refuses it. A
 * server whose workflows have no such setting (the hosted service) is said to answer at once.
 */
import { useMutation, useQueryClient } from "@tanstack/react-query";
import type { HttpResponseMode, Workflow } from "../../../shared/resources/index.js";
import { call } from "../../state/bridge.js";
import { keys } from "../../state/queries.js";
import { ErrorNote } from "../../ui/ErrorNote.js";
import { toast } from "../../ui/Toasts.js";
import { ExecutionControls } from "./ExecutionControls.js";
import { TriggersSection } from "./triggers/TriggersSection.js";

const MODES: { value: HttpResponseMode; label: string; hint: string }[] = [
  {
    value: "immediate",
    label: "At once",
    hint: 'The endpoint answers 200 {"success":true} as soon as the request is stored; the run goes on after.',
  },
  {
    value: "workflow",
    label: "With the workflow's $.respond",
    hint: "The caller waits for the run's $.respond({status, headers, body}): 204 when the run ends without it, 502 when it fails first, 504 after the server's timeout.",
  },
];

export function WorkflowSettings({ workflow: w }: { workflow: Workflow }) {
  const qc = useQueryClient();
  const save = useMutation({
    mutationFn: (mode: HttpResponseMode) => call("updateWorkflow", w.id, { http_response: mode }),
    onMutate: (mode) => {
      const previous = w;
      qc.setQueryData(keys.workflow(w.id), { ...w, http_response: mode });
      return { previous };
    },
    onError: (_e, _v, ctx) => ctx && qc.setQueryData(keys.workflow(w.id), ctx.previous),
    onSuccess: (saved) => {
      qc.setQueryData(keys.workflow(w.id), saved);
      void qc.invalidateQueries({ queryKey: ["workflows"] });
      toast(`HTTP callers are answered ${saved.http_response === "workflow" ? "by $.respond" : "at once"}`);
    },
  });

  const current = w.http_response;
  const hint = MODES.find((m) => m.value === current)?.hint;
  return (
    <div className="page workflow-settings">
      <h3>HTTP response</h3>
      {current === undefined ? (
        <p className="muted">
          This server answers the endpoint&apos;s callers at once, and has no setting to change it.
        </p>
      ) : (
        <div className="field">
          <label htmlFor={`http-response-${w.id}`}>Answer HTTP callers</label>
          <select
            id={`http-response-${w.id}`}
            value={current}
            disabled={save.isPending}
            aria-describedby={`http-response-hint-${w.id}`}
            onChange={(e) => save.mutate(e.target.value as HttpResponseMode)}
          >
            {MODES.map((m) => (
              <option key={m.value} value={m.value}>
                {m.label}
              </option>
            ))}
          </select>
          <div className="hint" id={`http-response-hint-${w.id}`}>
            {hint}
          </div>
        </div>
      )}
      <ErrorNote
        error={save.error}
        title="Could not change how callers are answered"
        onDismiss={() => save.reset()}
      />
      <TriggersSection workflow={w} />
      <ExecutionControls key={w.id} workflow={w} />
    </div>
  );
}
