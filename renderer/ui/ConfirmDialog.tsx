import { useState, type ReactNode } from "react";
import { Modal } from "./Modal.js";
import { ErrorNote } from "./ErrorNote.js";
import { Spinner } from "./Spinner.js";

/**
 * Asks before a destructive action. `onConfirm` may be async: the dialog shows progress while
 * it runs, closes when it succeeds, and shows the error in place when it fails.
 */
export function ConfirmDialog(props: {
  title: string;
  message: ReactNode;
  confirmLabel: string;
  onConfirm: () => Promise<unknown> | void;
  onClose: () => void;
  danger?: boolean;
}) {
  const { title, message, confirmLabel, onConfirm, onClose, danger = true } = props;
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const run = async () => {
    setBusy(true);
    setError(null);
    try {
      await onConfirm();
      onClose();
    } catch (err) {
      setError(err);
      setBusy(false);
    }
  };
  return (
    <Modal
      title={title}
      onClose={onClose}
      busy={busy}
      footer={
        <>
          {busy && <Spinner label="Working" />}
          {/* Focus starts on Cancel: Enter on a freshly opened confirmation must not destroy. */}
          <button type="button" className="btn" onClick={onClose} disabled={busy} data-autofocus>
            Cancel
          </button>
          <button
            type="button"
            className={danger ? "btn danger primary" : "btn primary"}
            onClick={() => void run()}
            disabled={busy}
          >
            {confirmLabel}
          </button>
        </>
      }
    >
      <div className="confirm-message">{message}</div>
      <ErrorNote error={error} />
    </Modal>
  );
}
