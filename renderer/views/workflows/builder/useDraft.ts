/**
 * The workflow's draft over the bridge: read (none is `null`, not an error), and saved as the
 * builder changes it, at most one request a second: the first change starts a one-second timer,
 * changes while it runs join it, and the save sends the newest steps. A change made while a save
 * is in flight is sent when it returns. `flush()` saves now (before a deploy or a test) and says
 * whether the draft then holds what the builder shows.
 */
import { useQuery, useQueryClient } from "@tanstack/react-query";
import { useCallback, useEffect, useRef, useState } from "react";
import type { WorkflowDraft } from "../../../../shared/resources/index.js";
import { BridgeCallError, call } from "../../../state/bridge.js";
import { draftSteps, nameProblem, type EditStep } from "./draftModel.js";

export const draftKey = (id: string) => ["workflow", id, "draft"] as const;
export const versionsKey = (id: string) => ["workflow", id, "versions"] as const;

/** The minimum time between two saves of the draft. */
export const AUTOSAVE_MS = 1000;

export function useDraftQuery(id: string) {
  return useQuery({
    queryKey: draftKey(id),
    queryFn: async (): Promise<WorkflowDraft | null> => {
      try {
        return await call("getWorkflowDraft", id);
      } catch (err) {
        if (err instanceof BridgeCallError && err.code === "no_draft") return null;
        throw err;
      }
    },
  });
}

export type SaveState = "idle" | "pending" | "saving" | "saved" | "error";

export function useDraftAutosave(id: string) {
  const qc = useQueryClient();
  const [state, setState] = useState<SaveState>("idle");
  const [error, setError] = useState<unknown>(null);
  const queued = useRef<EditStep[] | null>(null);
  const timer = useRef<ReturnType<typeof setTimeout> | null>(null);
  const inFlight = useRef<Promise<void> | null>(null);
  const lastSaved = useRef(true);

  const send = useCallback(async (): Promise<boolean> => {
    timer.current = null;
    if (inFlight.current) await inFlight.current;
    const steps = queued.current;
    queued.current = null;
    if (!steps) return lastSaved.current;
    // Names that cannot be saved stay on the page with their error until they are fixed.
    if (steps.some((s) => nameProblem(steps, s))) {
      lastSaved.current = false;
      setState("idle");
      return false;
    }
    setState("saving");
    const p = call("updateWorkflowDraft", id, { steps: draftSteps(steps) }).then(
      (draft) => {
        qc.setQueryData(draftKey(id), draft);
        lastSaved.current = true;
        setError(null);
        setState(queued.current ? "pending" : "saved");
      },
      (err: unknown) => {
        // Kept for the next flush (a test or deploy tries again), unless newer steps wait.
        queued.current ??= steps;
        lastSaved.current = false;
        setError(err);
        setState("error");
      },
    );
    inFlight.current = p;
    await p;
    inFlight.current = null;
    return lastSaved.current;
  }, [id, qc]);

  const change = useCallback(
    (steps: EditStep[]) => {
      queued.current = steps;
      setState("pending");
      if (!timer.current) timer.current = setTimeout(() => void send(), AUTOSAVE_MS);
    },
    [send],
  );

  /** Saves what is waiting now (a deploy or a test must not leave the last keystrokes behind). */
  const flush = useCallback(async (): Promise<boolean> => {
    if (timer.current) clearTimeout(timer.current);
    return send();
  }, [send]);

  /** Forgets what is waiting (the draft was discarded or deployed). */
  const reset = useCallback(() => {
    if (timer.current) clearTimeout(timer.current);
    timer.current = null;
    queued.current = null;
    lastSaved.current = true;
    setState("idle");
    setError(null);
  }, []);

  // Leaving the page saves what is waiting rather than dropping it.
  useEffect(
    () => () => {
      if (timer.current) {
        clearTimeout(timer.current);
        void send();
      }
    },
    [send],
  );

  return { state, error, change, flush, reset };
}
