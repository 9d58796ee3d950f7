/**
 * How the code editor hands its text to its owner. A short text goes at once, on every change.
 * A long one (a step of thousands of lines) goes once typing pauses (DEFER_MS, at the latest
 * DEFER_MAX_MS after the first change held): each hand-over copies the whole text and re-renders
 * the owner (the whole builder), work that on every keystroke made typing in a long step slow.
 * What is held goes at once when the editor loses the focus, before its Run key, and when it
 * closes, so nothing that reads the owner's state (a deploy, a test) misses the last keystrokes.
 */
import type { EditorView } from "@codemirror/view";

/** Texts longer than this are handed over once typing pauses. */
export const DEFER_ABOVE_CHARS = 20_000;
export const DEFER_MS = 150;
export const DEFER_MAX_MS = 500;

export interface ChangeRelay {
  /** The text changed. */
  changed(view: EditorView): void;
  /** Hands over what is held now; whether there was anything. */
  flush(): boolean;
  /** Forgets what is held (the text was replaced from outside). */
  drop(): void;
}

export function changeRelay(deliver: (text: string) => void): ChangeRelay {
  let held: EditorView | null = null;
  let since = 0;
  let timer: ReturnType<typeof setTimeout> | null = null;
  const stop = () => {
    if (timer) clearTimeout(timer);
    timer = null;
  };
  const flush = () => {
    stop();
    const view = held;
    held = null;
    if (!view) return false;
    deliver(view.state.doc.toString());
    return true;
  };
  return {
    changed(view) {
      if (!held && view.state.doc.length <= DEFER_ABOVE_CHARS) return deliver(view.state.doc.toString());
      const now = Date.now();
      if (!held) since = now;
      held = view;
      stop();
      timer = setTimeout(flush, Math.max(0, Math.min(DEFER_MS, since + DEFER_MAX_MS - now)));
    },
    flush,
    drop() {
      stop();
      held = null;
    },
  };
}
