/**
 * Run now (decisions.md "Workflow triggers"): a production run of the deployed workflow with an
 * optional JSON event (`{}` when left empty), trigger MANUAL. Its answer opens the run in the
 * Runs tab, whose live feed shows it like any run.
 */
import { useMutation } from "@tanstack/react-query";
import { useState } from "react";
import type { Workflow } from "../../../../shared/resources/index.js";
import { runHref } from "../../../app/router.js";
import { call } from "../../../state/bridge.js";
import { ErrorNote } from "../../../ui/ErrorNote.js";
import { Field } from "../../../ui/Field.js";
import { Modal } from "../../../ui/Modal.js";
import { Spinner } from "../../../ui/Spinner.js";
import { toast } from "../../../ui/Toasts.js";

/** The event typed: `{}` when empty, else JSON (the error says where it is not). */
export function parseEvent(text: string): { event: unknown } | { error: string } {
  if (text.trim() === "") return { event: {} };
  try {
    return { event: JSON.parse(text) as unknown };
  } catch (e) {
    return { error: `not JSON: ${e instanceof Error ? e.message : String(e)}` };
  }
}

export function RunNowDialog({ workflow: w, onClose }: { workflow: Workflow; onClose: () => void }) {
  const [text, setText] = useState("");
  const [error, setError] = useState<string | undefined>();
  const run = useMutation({
    mutationFn: (event: unknown) => call("runWorkflow", w.id, { event }),
    onSuccess: (r) => {
      toast(`Started run ${r.id}`);
      onClose();
      window.location.hash = runHref(w.id, r.id);
    },
  });
  const busy = run.isPending;
  const submit = () => {
    const parsed = parseEvent(text);
    if ("error" in parsed) return setError(parsed.error);
    setError(undefined);
    run.mutate(parsed.event);
  };
  return (
    <Modal
      title={`Run ${w.name} now`}
      onClose={onClose}
      busy={busy}
      wide
      footer={
        <>
          {busy && <Spinner label="Starting" />}
          <button type="button" className="btn" onClick={onClose} disabled={busy}>
            Cancel
          </button>
          <button type="submit" form="run-now-form" className="btn primary" disabled={busy}>
            Run now
          </button>
        </>
      }
    >
      <form
        id="run-now-form"
        aria-label="Run now"
        onSubmit={(e) => {
          e.preventDefault();
          submit();
        }}
      >
        <p className="muted">
          A production run of version {w.version ?? 1}, through the workflow&apos;s queue (retries,
          concurrency and throttle apply). Its steps run for real.
        </p>
        <Field
          id="run-now-event"
          label="Event (JSON, optional)"
          error={error}
          hint="steps.trigger.event; empty: {}"
        >
          <textarea
            id="run-now-event"
            className="mono"
            rows={8}
            value={text}
            spellCheck={false}
            disabled={busy}
            onChange={(e) => setText(e.target.value)}
            data-autofocus
          />
        </Field>
        <ErrorNote error={run.error} title="Could not start the run" onDismiss={() => run.reset()} />
      </form>
    </Modal>
  );
}
