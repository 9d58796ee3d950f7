/**
 * What the Steps tab shows: "Draft, not deployed" (with its saving state) or "Deployed version N";
 * Deploy with a message, and Discard. A refused deploy says why: a step that does not parse
 * (400 `invalid_step`, shown at the step), or a workflow changed elsewhere (409
 * `version_conflict`, with Reload).
 */
import { useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import type { StepProblem, Workflow, WorkflowDraft } from "../../../../shared/resources/index.js";
import { BridgeCallError, call } from "../../../state/bridge.js";
import { keys } from "../../../state/queries.js";
import { ConfirmDialog } from "../../../ui/ConfirmDialog.js";
import { ErrorNote } from "../../../ui/ErrorNote.js";
import { Spinner } from "../../../ui/Spinner.js";
import { toast } from "../../../ui/Toasts.js";
import { deployProblems } from "./draftModel.js";
import { draftKey, versionsKey, type SaveState } from "./useDraft.js";

const SAVE_TEXT: Record<SaveState, string> = {
  idle: "",
  pending: "Unsaved changes…",
  saving: "Saving…",
  saved: "Saved",
  error: "Not saved",
};

export function DeployBar(props: {
  workflow: Workflow;
  draft: WorkflowDraft | null;
  saveState: SaveState;
  saveError: unknown;
  message: string;
  setMessage: (m: string) => void;
  flush: () => Promise<unknown>;
  onDeployProblems: (p: StepProblem[]) => void;
  onDone: () => void;
  reload: () => Promise<void>;
}) {
  const { workflow: w, draft, saveState, message, setMessage } = props;
  const qc = useQueryClient();
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const [discarding, setDiscarding] = useState(false);
  const isDraft = draft !== null || saveState === "pending" || saveState === "saving";
  const conflict = error instanceof BridgeCallError && error.code === "version_conflict";
  const invalid = error instanceof BridgeCallError && error.code === "invalid_step";

  const deploy = async () => {
    setBusy(true);
    setError(null);
    try {
      await props.flush();
      // The version this page shows: a deploy made elsewhere since is a conflict, not overwritten.
      const saved = await call("deployWorkflowDraft", w.id, {
        ...(message.trim() ? { message: message.trim() } : {}),
        ...(w.version ? { base_version: w.version } : {}),
      });
      qc.setQueryData(draftKey(w.id), null);
      qc.setQueryData(keys.workflow(w.id), saved);
      void qc.invalidateQueries({ queryKey: versionsKey(w.id) });
      void qc.invalidateQueries({ queryKey: ["workflows"] });
      toast(`Deployed version ${saved.version ?? ""}`.trim());
      setMessage("");
      props.onDone();
    } catch (err) {
      setError(err);
      if (err instanceof BridgeCallError && err.code === "invalid_step") props.onDeployProblems(deployProblems(err.details));
    } finally {
      setBusy(false);
    }
  };

  return (
    <div className="deploy-bar" role="region" aria-label="Draft and deploy">
      <div className="deploy-status">
        {isDraft ? (
          <span className="chip draft-chip">Draft, not deployed</span>
        ) : (
          <span className="chip ok">Deployed version {w.version ?? "?"}</span>
        )}
        {isDraft && draft && (
          <span className="muted">
            from version {draft.base_version}
            {w.version && draft.base_version !== w.version ? ` (version ${w.version} is deployed now)` : ""}
          </span>
        )}
        <span className="muted" role="status" aria-live="polite">
          {SAVE_TEXT[saveState]}
        </span>
      </div>
      {isDraft && (
        <form
          className="deploy-form"
          onSubmit={(e) => {
            e.preventDefault();
            void deploy();
          }}
        >
          <label className="deploy-message">
            <span>Message</span>
            <input
              value={message}
              maxLength={1000}
              placeholder="What this version changes"
              onChange={(e) => setMessage(e.target.value)}
            />
          </label>
          <button type="submit" className="btn primary" disabled={busy}>
            Deploy
          </button>
          <button type="button" className="btn" disabled={busy} onClick={() => setDiscarding(true)}>
            Discard
          </button>
          {busy && <Spinner label="Deploying" />}
        </form>
      )}
      {saveState === "error" && <ErrorNote error={props.saveError} title="Could not save the draft" />}
      {conflict ? (
        <div role="alert" className="inline-error">
          <p>
            This workflow was changed elsewhere since this page loaded version {w.version}: nothing was deployed. Reload
            to see the current version; your draft is kept.
          </p>
          <button
            type="button"
            className="btn small"
            onClick={() => {
              setError(null);
              void props.reload();
            }}
          >
            Reload
          </button>
        </div>
      ) : invalid ? (
        <p role="alert" className="inline-error">
          {(error as BridgeCallError).details?.some((d) => d.path.includes(".configured_props"))
            ? "Not deployed: a step's props are not right yet. Fix the problems shown at the step's props."
            : "Not deployed: a step's code does not parse. Fix the problems shown at the step."}
        </p>
      ) : (
        error !== null && <ErrorNote error={error} title="Could not deploy the draft" />
      )}
      {discarding && (
        <ConfirmDialog
          title="Discard the draft?"
          message={<p>Its changes are lost; the steps go back to version {w.version}.</p>}
          confirmLabel="Discard draft"
          onConfirm={async () => {
            await call("discardWorkflowDraft", w.id);
            qc.setQueryData(draftKey(w.id), null);
            props.onDone();
          }}
          onClose={() => setDiscarding(false)}
        />
      )}
    </div>
  );
}
