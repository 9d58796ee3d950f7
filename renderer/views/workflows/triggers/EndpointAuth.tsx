/**
 * Whether the workflow's endpoint needs `Authorization: Bearer <token>`. The server never answers
 * a token, so this says only whether one is set. "Generate token" (or "Rotate token") makes a new
 * one here, saves it as a new version, and shows it once in a dialog to copy: it cannot be shown
 * again. "Use my own token" sets one typed in; "Remove token" opens the endpoint again.
 */
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { TOKEN_LENGTH, type HttpAuthInput, type Workflow } from "../../../../shared/resources/index.js";
import { call } from "../../../state/bridge.js";
import { keys } from "../../../state/queries.js";
import { CopyButton } from "../../../ui/CopyButton.js";
import { ErrorNote } from "../../../ui/ErrorNote.js";
import { Field } from "../../../ui/Field.js";
import { Modal } from "../../../ui/Modal.js";
import { toast } from "../../../ui/Toasts.js";
import { newToken } from "./scheduleForm.js";

export function EndpointAuth({ workflow: w }: { workflow: Workflow }) {
  const qc = useQueryClient();
  const [shown, setShown] = useState<string | null>(null);
  const [own, setOwn] = useState<string | null>(null);
  const [ownError, setOwnError] = useState<string | undefined>();
  const save = useMutation({
    mutationFn: (http_auth: HttpAuthInput) =>
      call("updateWorkflow", w.id, { http_auth, ...(w.version ? { base_version: w.version } : {}) }),
    onSuccess: (saved, auth) => {
      qc.setQueryData(keys.workflow(w.id), saved);
      void qc.invalidateQueries({ queryKey: ["workflows"] });
      toast(auth.type === "none" ? "The endpoint needs no token now" : "The endpoint's token is set");
    },
  });
  const bearer = w.http_auth?.type === "bearer";
  const busy = save.isPending;
  const generate = () => {
    const token = newToken();
    save.mutate({ type: "bearer", token }, { onSuccess: () => setShown(token) });
  };
  const submitOwn = () => {
    const t = own ?? "";
    if (t.length < TOKEN_LENGTH.min || t.length > TOKEN_LENGTH.max || !/^[\x21-\x7e]+$/.test(t))
      return setOwnError(`${TOKEN_LENGTH.min} to ${TOKEN_LENGTH.max} printable characters, no spaces`);
    setOwnError(undefined);
    save.mutate({ type: "bearer", token: t }, { onSuccess: () => setOwn(null) });
  };
  return (
    <div className="endpoint-auth">
      <h4>Endpoint auth</h4>
      <p className="hint">
        {bearer
          ? "Token set: requests to the endpoint need Authorization: Bearer <token>; others are answered 401 and run nothing."
          : "No token: anyone who knows the endpoint URL can start runs."}
      </p>
      <div className="actions">
        <button type="button" className="btn small" disabled={busy} onClick={generate}>
          {bearer ? "Rotate token" : "Generate token"}
        </button>
        <button type="button" className="btn small" disabled={busy} onClick={() => setOwn("")}>
          Use my own token
        </button>
        {bearer && (
          <button
            type="button"
            className="btn small danger"
            disabled={busy}
            onClick={() => save.mutate({ type: "none" })}
          >
            Remove token
          </button>
        )}
      </div>
      {own !== null && (
        <form
          aria-label="Set the endpoint's token"
          onSubmit={(e) => {
            e.preventDefault();
            submitOwn();
          }}
        >
          <Field
            id={`own-token-${w.id}`}
            label="Token"
            error={ownError}
            hint="It replaces the current one; it is never shown again."
          >
            <input
              id={`own-token-${w.id}`}
              type="password"
              autoComplete="off"
              value={own}
              disabled={busy}
              onChange={(e) => setOwn(e.target.value)}
            />
          </Field>
          <button type="submit" className="btn primary small" disabled={busy}>
            Set token
          </button>
          <button type="button" className="btn small" disabled={busy} onClick={() => setOwn(null)}>
            Cancel
          </button>
        </form>
      )}
      <ErrorNote
        error={save.error}
        title="Could not change the endpoint's auth"
        onDismiss={() => save.reset()}
      />
      {shown && (
        <Modal
          title="The endpoint's new token"
          onClose={() => setShown(null)}
          footer={
            <button type="button" className="btn primary" onClick={() => setShown(null)}>
              Done
            </button>
          }
        >
          <p>
            Copy it now: it is not shown again. Callers send it as{" "}
            <code>Authorization: Bearer &lt;token&gt;</code>.
          </p>
          <p>
            <code className="token-once">{shown}</code> <CopyButton text={shown} label="Copy token" />
          </p>
        </Modal>
      )}
    </div>
  );
}
