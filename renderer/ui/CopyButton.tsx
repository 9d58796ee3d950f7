import { useEffect, useState, type ReactNode } from "react";

/** Copies text to the clipboard; falls back to a hidden textarea where the API is unavailable. */
export async function copyText(text: string): Promise<void> {
  if (navigator.clipboard?.writeText) {
    try {
      await navigator.clipboard.writeText(text);
      return;
    } catch {
      // Permission refused (e.g. unfocused document): fall through to the older path.
    }
  }
  const ta = document.createElement("textarea");
  ta.value = text;
  ta.setAttribute("readonly", "");
  ta.style.position = "fixed";
  ta.style.opacity = "0";
  document.body.appendChild(ta);
  ta.select();
  const ok = document.execCommand?.("copy");
  ta.remove();
  if (!ok) throw new Error("The clipboard is not available here; select the text and copy it by hand.");
}

export function CopyButton(props: { text: string; label: string; children?: ReactNode; className?: string }) {
  const [state, setState] = useState<"idle" | "copied" | "failed">("idle");
  useEffect(() => {
    if (state === "idle") return;
    const t = setTimeout(() => setState("idle"), 1600);
    return () => clearTimeout(t);
  }, [state]);
  // The name holds the visible text (WCAG 2.5.3, label in name): `label` starts with what the
  // button shows ("Copy JSON" / "Copy JSON of this event"); once clicked, the name is the outcome.
  const shown = state === "copied" ? "Copied" : state === "failed" ? "Copy failed" : null;
  return (
    <button
      type="button"
      className={props.className ?? "btn small"}
      aria-label={shown ?? props.label}
      title={props.label}
      onClick={() => {
        copyText(props.text).then(
          () => setState("copied"),
          () => setState("failed"),
        );
      }}
    >
      {shown ?? props.children ?? "Copy"}
      <span className="sr-only" aria-live="polite">
        {state === "copied" ? "Copied to clipboard" : state === "failed" ? "Copy failed" : ""}
      </span>
    </button>
  );
}
