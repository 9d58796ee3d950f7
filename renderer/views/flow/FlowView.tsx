/**
 * Flow: how events move through the account. Sources and workflows as nodes, subscriptions as
 * edges labelled with the emitter's event count, laid out left to right (graph.ts), drawn by
 * React Flow (pan, zoom, fit). A node opens its source or workflow. Refreshed every few seconds,
 * so new wiring and new events show without a reload.
 *
 * Kept smooth at 200 nodes and 400 edges (bench/dashboard-flow.bench.ts, docs/benchmarks.md): the
 * layout runs in a worker and only when the wiring changes; a refresh of the counts hands React
 * Flow the same edge objects except those whose figure moved; every prop given to React Flow is
 * stable (a new `defaultEdgeOptions` object re-renders every edge); all elements stay mounted, so
 * a pan or zoom only changes the viewport's transform instead of mounting and unmounting edges at
 * the border on every frame as `onlyRenderVisibleElements` did; edges are out of hit testing
 * (flow.css).
 */
import { useQuery, useQueryClient } from "@tanstack/react-query";
import {
  Background,
  Controls,
  Handle,
  MarkerType,
  Position,
  ReactFlow,
  type DefaultEdgeOptions,
  type FitViewOptions,
  type Node,
  type NodeMouseHandler,
  type NodeProps,
} from "@xyflow/react";
import "@xyflow/react/dist/base.css";
import { memo, useEffect, useMemo, useState } from "react";
import { navigate, routeHref } from "../../app/router.js";
import { useAllSources, useAllWorkflows, useSubscriptions, keys } from "../../state/queries.js";
import { ErrorNote } from "../../ui/ErrorNote.js";
import { Loading } from "../../ui/Spinner.js";
import { emitterCounts } from "./counts.js";
import { FarZoomClass, FlowEdge } from "./FlowEdge.js";
import { withCounts, type EdgeCounts, type FlowGraph, type FlowNodeData, type WiringInput } from "./graph.js";
import { useFlowLayout } from "./layout.js";

const REFRESH_MS = 5_000;

// Memoised: a refresh of the counts changes the edges only, and 200 nodes need not render again.
const EmitterNode = memo(function EmitterNode({ data }: NodeProps<Node<FlowNodeData>>) {
  const view = data.kind === "source" ? "sources" : data.kind === "workflow" ? "workflows" : null;
  return (
    <div className={`flow-node flow-node-${data.kind}`}>
      <Handle type="target" position={Position.Left} isConnectable={false} />
      <span className="flow-node-kind">{data.kind === "missing" ? "not found" : data.kind}</span>
      {view ? (
        <a className="flow-node-name" href={routeHref(view, data.ref)} title={data.label}>
          {data.label}
        </a>
      ) : (
        <span className="flow-node-name" title={data.label}>
          {data.label}
        </span>
      )}
      <code className="flow-node-id">{data.ref}</code>
      <Handle type="source" position={Position.Right} isConnectable={false} />
    </div>
  );
});

const nodeTypes = { emitter: EmitterNode };
const edgeTypes = { flow: FlowEdge };
const defaultEdgeOptions: DefaultEdgeOptions = { markerEnd: { type: MarkerType.ArrowClosed } };
// A small account is drawn at its natural size rather than blown up to fill the canvas.
const fitViewOptions: FitViewOptions = { maxZoom: 1, padding: 0.15 };
const proOptions = { hideAttribution: false };
const NO_COUNTS: EdgeCounts = { counts: new Map(), basis: "retained" };
const openNode: NodeMouseHandler = (_e, node) => {
  const d = node.data as FlowNodeData;
  if (d.kind === "source") navigate("sources", d.ref);
  else if (d.kind === "workflow") navigate("workflows", d.ref);
};

export function FlowView() {
  const qc = useQueryClient();
  const sources = useAllSources(true);
  const workflows = useAllWorkflows();
  const subs = useSubscriptions();
  const emitters = useMemo(
    () => [...new Set((subs.data ?? []).map((s) => s.emitter_id).filter((id) => !id.endsWith("*")))].sort(),
    [subs.data],
  );
  const counts = useQuery({
    queryKey: ["flowCounts", emitters],
    queryFn: () => emitterCounts(emitters),
    refetchInterval: REFRESH_MS,
    placeholderData: (prev) => prev,
  });

  // The wiring itself changes from other views, the CLI or other people: re-read it too.
  useEffect(() => {
    const t = setInterval(() => {
      void qc.invalidateQueries({ queryKey: keys.subscriptions });
      void qc.invalidateQueries({ queryKey: keys.allSources });
      void qc.invalidateQueries({ queryKey: keys.allWorkflows });
    }, REFRESH_MS * 2);
    return () => clearInterval(t);
  }, [qc]);

  // Laid out (in a worker) again only when the wiring changes, not when the counts refresh.
  const wiring = useMemo<WiringInput | null>(
    () =>
      sources.data && workflows.data && subs.data
        ? { sources: names(sources.data), workflows: names(workflows.data), subscriptions: subs.data.map(wire) }
        : null,
    [sources.data, workflows.data, subs.data],
  );
  const layout = useFlowLayout(wiring);
  // Labelled from the previous labelled graph, so edges whose figure did not move stay the same
  // objects (React's pattern for information from previous renders: set while rendering).
  const [labelled, setLabelled] = useState<{ layout: FlowGraph; counts: unknown; graph: FlowGraph } | null>(null);
  let graph = labelled?.graph ?? null;
  if (layout.graph && (labelled?.layout !== layout.graph || labelled.counts !== counts.data)) {
    graph = withCounts(layout.graph, counts.data ?? NO_COUNTS, labelled?.graph);
    setLabelled({ layout: layout.graph, counts: counts.data, graph });
  }

  const error = sources.error ?? workflows.error ?? subs.error ?? layout.error;
  const loading = sources.isPending || workflows.isPending || subs.isPending || (!graph && !layout.error);
  const summary = `Event flow: ${sources.data?.length ?? 0} sources, ${workflows.data?.length ?? 0} workflows, ${subs.data?.length ?? 0} subscriptions`;

  return (
    <div className="page wide flow-page">
      <header className="page-head">
        <h1>Flow</h1>
        <p className="muted">
          Which sources and workflows feed which. Each arrow is a subscription, labelled with the
          emitter&apos;s
          {counts.data?.basis === "hour" ? " events in the last hour" : " retained events"}. Open a node to
          see it.
        </p>
      </header>
      <ErrorNote error={error} title="Could not load the wiring" onRetry={() => void subs.refetch()} />
      {loading && !error ? (
        <Loading label="Loading the wiring" />
      ) : !graph ? null : (
        <div className="flow-canvas">
          <ReactFlow
            aria-label={summary}
            nodes={graph.nodes}
            edges={graph.edges}
            nodeTypes={nodeTypes}
            edgeTypes={edgeTypes}
            defaultEdgeOptions={defaultEdgeOptions}
            fitView
            fitViewOptions={fitViewOptions}
            minZoom={0.1}
            maxZoom={2}
            nodesDraggable={false}
            nodesConnectable={false}
            edgesFocusable={false}
            onNodeClick={openNode}
            proOptions={proOptions}
          >
            <FarZoomClass />
            <Background gap={24} />
            <Controls showInteractive={false} />
          </ReactFlow>
        </div>
      )}
    </div>
  );
}

// Only what the layout uses crosses to the worker (a source's props can be large).
const names = (xs: readonly { id: string; name: string }[]) => xs.map(({ id, name }) => ({ id, name }));
const wire = ({ emitter_id, listener_id, event_name }: WiringInput["subscriptions"][number]) => ({
  emitter_id,
  listener_id,
  event_name,
});
