/**
 * Lays the wiring out off the page's thread: dagre takes hundreds of milliseconds at 200 nodes
 * and 400 edges, which on the UI thread froze panning and the rest of the dashboard whenever the
 * wiring changed. Answers each request with its id (layoutInWorker in layout.ts).
 */
import { layoutFlowGraph } from "./graph.js";
import type { LayoutRequest, LayoutReply } from "./layout.js";

const scope = self as unknown as {
  onmessage: ((e: MessageEvent<LayoutRequest>) => void) | null;
  postMessage(reply: LayoutReply): void;
};

scope.onmessage = (e) => {
  const { id, sources, workflows, subscriptions } = e.data;
  try {
    scope.postMessage({ id, graph: layoutFlowGraph(sources, workflows, subscriptions) });
  } catch (err) {
    scope.postMessage({ id, error: err instanceof Error ? err.message : String(err) });
  }
};
