/**
 * The list-beside-detail frame of Sources, Workflows and Components. In a wide window (1100 px
 * and more, master-detail.css) the list is a column beside the detail. Narrower, the detail gets
 * the whole width and the list is a drawer over it, opened by the "☰ Sources" button above the
 * detail and closed by picking an item, Escape, or a click beside it. While nothing is selected
 * the drawer starts open, so the list is what a narrow window shows first.
 */
import { useEffect, useId, useRef, useState, type ReactNode } from "react";

export function MasterDetail(props: {
  /** The list's name: its landmark's label and the drawer button's text ("Sources"). */
  listLabel: string;
  /** The detail's landmark label ("Source"). */
  detailLabel: string;
  /** What is selected (the route's id), or null: picking another closes the drawer. */
  selected: string | null;
  list: ReactNode;
  detail: ReactNode;
  /** Dialogs and the like, rendered after both panes. */
  children?: ReactNode;
}) {
  const { listLabel, detailLabel, selected } = props;
  const listId = useId();
  const [open, setOpen] = useState(selected === null);
  const masterRef = useRef<HTMLElement>(null);
  const toggleRef = useRef<HTMLButtonElement>(null);

  // Another selection (or none) closes (opens) the drawer: state adjusted while rendering.
  const [shown, setShown] = useState(selected);
  if (shown !== selected) {
    setShown(selected);
    setOpen(selected === null);
  }

  // Escape closes the open drawer wherever the focus is (a dialog's own Escape comes first: it
  // stops the key there); the focus goes back to the button if it was in the list.
  useEffect(() => {
    if (!open) return;
    const onKey = (e: KeyboardEvent) => {
      if (e.key !== "Escape" || e.defaultPrevented || !toggleRef.current?.offsetParent) return;
      const refocus = masterRef.current?.contains(document.activeElement) ?? false;
      setOpen(false);
      if (refocus) toggleRef.current?.focus();
    };
    document.addEventListener("keydown", onKey);
    return () => document.removeEventListener("keydown", onKey);
  }, [open]);

  const show = () => {
    setOpen(true);
    // After the drawer is displayed: its first control takes the focus.
    requestAnimationFrame(() => masterRef.current?.querySelector<HTMLElement>("a, button, input")?.focus());
  };
  const hide = (refocus: boolean) => {
    setOpen(false);
    if (refocus) toggleRef.current?.focus();
  };

  return (
    <div className={open ? "master-detail list-open" : "master-detail"}>
      <section
        className="master"
        id={listId}
        aria-label={listLabel}
        ref={masterRef}
        // Following an item's link closes the drawer, also when it is the one already open.
        onClick={(e) => {
          if ((e.target as Element).closest("a[href]")) setOpen(false);
        }}
      >
        {props.list}
      </section>
      <section className="detail" aria-label={detailLabel}>
        <div className="list-bar">
          <button
            type="button"
            ref={toggleRef}
            className="btn small list-toggle"
            aria-expanded={open}
            aria-controls={listId}
            onClick={() => (open ? hide(false) : show())}
          >
            <span aria-hidden="true">☰</span> {listLabel}
          </button>
        </div>
        {props.detail}
      </section>
      {/* Narrow windows: a click beside the open drawer closes it (the keyboard has Escape). */}
      <div className="list-scrim" aria-hidden="true" onClick={() => hide(false)} />
      {props.children}
    </div>
  );
}
