import { useEffect, useId, useRef, type ReactNode } from "react";
import { createPortal } from "react-dom";

/**
 * A modal dialog (role=dialog, aria-modal) rendered over the app. Escape and the backdrop close
 * it unless `busy`; focus moves into it on open and back where it was on close.
 */
export function Modal(props: {
  title: string;
  onClose: () => void;
  children: ReactNode;
  footer?: ReactNode;
  busy?: boolean;
  wide?: boolean;
  role?: "dialog" | "alertdialog";
}) {
  const { title, onClose, children, footer, busy, wide, role = "dialog" } = props;
  const titleId = useId();
  const ref = useRef<HTMLDivElement>(null);
  const closeRef = useRef(onClose);
  const busyRef = useRef(busy);
  useEffect(() => {
    closeRef.current = onClose;
    busyRef.current = busy;
  });

  useEffect(() => {
    const before = document.activeElement as HTMLElement | null;
    const el = ref.current;
    const first =
      el?.querySelector<HTMLElement>("[data-autofocus]") ??
      el?.querySelector<HTMLElement>("input, textarea, select, button.primary");
    (first ?? el)?.focus();
    const onKey = (e: KeyboardEvent) => {
      // In a code editor Escape belongs to the editor (it closes its completions, and Escape then
      // Tab is how the keyboard leaves it): the dialog stays open.
      const inEditor = e.target instanceof Element && e.target.closest(".cm-editor") !== null;
      if (e.key === "Escape" && !busyRef.current && !inEditor) {
        e.stopPropagation();
        closeRef.current();
      }
    };
    document.addEventListener("keydown", onKey, true);
    return () => {
      document.removeEventListener("keydown", onKey, true);
      before?.focus?.();
    };
  }, []);

  return createPortal(
    <div
      className="modal-backdrop"
      onMouseDown={(e) => {
        if (e.target === e.currentTarget && !busy) onClose();
      }}
    >
      <div
        ref={ref}
        role={role}
        aria-modal="true"
        aria-labelledby={titleId}
        className={wide ? "modal wide" : "modal"}
        tabIndex={-1}
      >
        <header className="modal-head">
          <h2 id={titleId}>{title}</h2>
          <button
            type="button"
            className="btn ghost icon"
            aria-label="Close"
            onClick={onClose}
            disabled={busy}
          >
            ×
          </button>
        </header>
        <div className="modal-body">{children}</div>
        {footer && <footer className="modal-foot">{footer}</footer>}
      </div>
    </div>,
    document.body,
  );
}
