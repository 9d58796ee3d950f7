import { create } from "zustand";

/** Short confirmations of finished actions ("Source deleted"). Errors stay where they happened. */
interface Toast {
  id: number;
  text: string;
}
interface ToastState {
  toasts: Toast[];
  push: (text: string) => void;
  dismiss: (id: number) => void;
}

let nextId = 1;
export const useToasts = create<ToastState>()((set, get) => ({
  toasts: [],
  push: (text) => {
    const id = nextId++;
    set({ toasts: [...get().toasts.slice(-3), { id, text }] });
    setTimeout(() => get().dismiss(id), 3500);
  },
  dismiss: (id) => set({ toasts: get().toasts.filter((t) => t.id !== id) }),
}));

export const toast = (text: string) => useToasts.getState().push(text);

export function Toasts() {
  const toasts = useToasts((s) => s.toasts);
  const dismiss = useToasts((s) => s.dismiss);
  return (
    <div className="toasts" role="status" aria-live="polite">
      {toasts.map((t) => (
        <div key={t.id} className="toast">
          <span>{t.text}</span>
          <button type="button" className="btn ghost icon" aria-label="Dismiss" onClick={() => dismiss(t.id)}>
            ×
          </button>
        </div>
      ))}
    </div>
  );
}
