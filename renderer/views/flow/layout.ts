/**
 * The flow graph's layout, off the UI thread: requests go to one shared worker
 * (layout.worker.ts) and come back as positioned graphs. Where a worker cannot start (no Worker,
 * as in unit tests, or a host that refuses to load it) the same function runs on the page after
 * the current frame, so the view still draws, only less smoothly while it lays out.
 */
import { useEffect, useState } from "react";
import { layoutFlowGraph, type FlowGraph, type WiringInput } from "./graph.js";

export interface LayoutRequest extends WiringInput {
  id: number;
}
export type LayoutReply = { id: number; graph: FlowGraph } | { id: number; error: string };

interface Pending {
  input: WiringInput;
  resolve: (g: FlowGraph) => void;
  reject: (e: Error) => void;
}

let worker: Worker | null | undefined;
let nextId = 1;
const pending = new Map<number, Pending>();

function onThisThread(input: WiringInput): Promise<FlowGraph> {
  return new Promise((resolve, reject) =>
    setTimeout(() => {
      try {
        resolve(layoutFlowGraph(input.sources, input.workflows, input.subscriptions));
      } catch (err) {
        reject(err instanceof Error ? err : new Error(String(err)));
      }
    }, 0),
  );
}

/** The shared worker, started on first use; null when this page cannot have one. */
function layoutWorker(): Worker | null {
  if (worker !== undefined) return worker;
  if (typeof Worker === "undefined") return (worker = null);
  try {
    worker = new Worker(new URL("./layout.worker.ts", import.meta.url), { type: "module", name: "flow-layout" });
  } catch {
    return (worker = null);
  }
  worker.onmessage = (e: MessageEvent<LayoutReply>) => {
    const p = pending.get(e.data.id);
    if (!p) return;
    pending.delete(e.data.id);
    if ("graph" in e.data) p.resolve(e.data.graph);
    else p.reject(new Error(e.data.error));
  };
  // The script failed to load or crashed: finish what was asked here, and stop using it.
  worker.onerror = (e) => {
    e.preventDefault();
    worker?.terminate();
    worker = null;
    const waiting = [...pending.values()];
    pending.clear();
    for (const p of waiting) onThisThread(p.input).then(p.resolve, p.reject);
  };
  return worker;
}

export function layoutInWorker(input: WiringInput): Promise<FlowGraph> {
  const w = layoutWorker();
  if (!w) return onThisThread(input);
  const id = nextId++;
  return new Promise((resolve, reject) => {
    pending.set(id, { input, resolve, reject });
    w.postMessage({ id, ...input } satisfies LayoutRequest);
  });
}

/**
 * The laid-out wiring, or null until the first layout arrives. While a new layout is computed
 * the previous one stays on screen; an answer to an older request is dropped.
 */
export function useFlowLayout(input: WiringInput | null): { graph: FlowGraph | null; error: Error | null } {
  const [state, setState] = useState<{ graph: FlowGraph | null; error: Error | null }>({ graph: null, error: null });
  useEffect(() => {
    if (!input) return;
    let current = true;
    layoutInWorker(input).then(
      (graph) => current && setState({ graph, error: null }),
      (error: Error) => current && setState((s) => ({ graph: s.graph, error })),
    );
    return () => {
      current = false;
    };
  }, [input]);
  return state;
}
