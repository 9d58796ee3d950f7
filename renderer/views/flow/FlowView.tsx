/**
 * Flow: how events move through the account. Sources and workflows as nodes, subscriptions as
 * edges labelled with the emitter's event count, laid out left to right (graph.ts), drawn by
 * React Flow (pan, zoom, fit). A node opens its source or workflow. Refreshed every few seconds,
 * so new wiring and new events show without a reload.
 */
import { useQuery, useQueryClient } from "@tanstack/react-query";
import {
  Background,
  Controls,
  Handle,
  MarkerType,
  Position,
  ReactFlow,
  type Node,
  type NodeProps,
} from "@xyflow/react";
import "@xyflow/react/dist/base.css";
import { memo, useEffect, useMemo } from "react";
import { navigate, routeHref } from "../../app/router.js";
import { useAllSources, useAllWorkflows, useSubscriptions, keys } from "../../state/queries.js";
import { ErrorNote } from "../../ui/ErrorNote.js";
import { Loading } from "../../ui/Spinner.js";
import { emitterCounts } from "./counts.js";
import { layoutFlowGraph, withCounts, type FlowNodeData } from "./graph.js";

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

  // Laid out again only when the wiring changes: the counts refresh every few seconds, and a new
  // layout of 200 nodes blocks the page for about a second (bench/dashboard-flow.bench.ts).
  const layout = useMemo(
    () => layoutFlowGraph(sources.data ?? [], workflows.data ?? [], subs.data ?? []),
    [sources.data, workflows.data, subs.data],
  );
  const graph = useMemo(
    () => withCounts(layout, counts.data ?? { counts: new Map(), basis: "retained" }),
    [layout, counts.data],
  );

  const error = sources.error ?? workflows.error ?? subs.error;
  const loading = sources.isPending || workflows.isPending || subs.isPending;
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
      ) : (
        <div className="flow-canvas">
          <ReactFlow
            aria-label={summary}
            nodes={graph.nodes}
            edges={graph.edges}
            nodeTypes={nodeTypes}
            defaultEdgeOptions={{ markerEnd: { type: MarkerType.ArrowClosed } }}
            fitView
            // A small account is drawn at its natural size rather than blown up to fill the canvas.
            fitViewOptions={{ maxZoom: 1, padding: 0.15 }}
            minZoom={0.1}
            maxZoom={2}
            nodesDraggable={false}
            nodesConnectable={false}
            edgesFocusable={false}
            onNodeClick={(_e, node) => {
              const d = node.data as FlowNodeData;
              if (d.kind === "source") navigate("sources", d.ref);
              else if (d.kind === "workflow") navigate("workflows", d.ref);
            }}
            onlyRenderVisibleElements
            proOptions={{ hideAttribution: false }}
          >
            <Background gap={24} />
            <Controls showInteractive={false} />
          </ReactFlow>
        </div>
      )}
    </div>
  );
}
