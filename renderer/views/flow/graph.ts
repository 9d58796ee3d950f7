/**
 * The account's wiring as a graph: sources and workflows are nodes, each subscription a directed
 * edge from its emitter to its listener (a glob emitter, `dc_*` or `p_*`, is a node of its own),
 * laid out left to right by dagre. Pure: the view and the bench build the same graph.
 */
import dagre from "@dagrejs/dagre";
import type { Edge, Node } from "@xyflow/react";
import type { Source, Subscription, Workflow } from "../../../shared/resources/index.js";

export type FlowNodeKind = "source" | "workflow" | "glob" | "missing";

export interface FlowNodeData extends Record<string, unknown> {
  label: string;
  kind: FlowNodeKind;
  /** The source or workflow id, or the glob. */
  ref: string;
}

export interface FlowEdgeData extends Record<string, unknown> {
  channel: string;
  count: number | null;
}

export const NODE_WIDTH = 220;
export const NODE_HEIGHT = 58;

const GLOB_LABEL: Record<string, string> = { "dc_*": "All sources", "p_*": "All workflows" };

/** Counts of an emitter's events shown on its edges: over the last hour, or retained. */
export interface EdgeCounts {
  counts: ReadonlyMap<string, number>;
  /** "hour": events in the last hour (stats); "retained": events the server still keeps. */
  basis: "hour" | "retained";
}

export function edgeLabel(count: number | null, channel: string, basis: EdgeCounts["basis"]): string {
  const ch = channel === "" ? "" : ` · ${channel}`;
  if (count === null) return channel === "" ? "" : channel;
  const n = `${count.toLocaleString("en-US")} event${count === 1 ? "" : "s"}`;
  return basis === "hour" ? `${n} in the last hour${ch}` : `${n}${ch}`;
}

/** What the layout needs of the account: names and the wiring, nothing else (it goes to a worker). */
export interface WiringInput {
  sources: readonly Pick<Source, "id" | "name">[];
  workflows: readonly Pick<Workflow, "id" | "name">[];
  subscriptions: readonly Pick<Subscription, "emitter_id" | "listener_id" | "event_name">[];
}

export interface FlowGraph {
  nodes: Node<FlowNodeData>[];
  edges: Edge<FlowEdgeData>[];
}

/**
 * Nodes (positioned) and edges of the wiring. Every source and workflow is a node, wired or not,
 * so a new one shows where it can be connected.
 */
export function buildFlowGraph(
  sources: readonly Source[],
  workflows: readonly Workflow[],
  subscriptions: readonly Subscription[],
  counts: EdgeCounts = { counts: new Map(), basis: "retained" },
): FlowGraph {
  return withCounts(layoutFlowGraph(sources, workflows, subscriptions), counts);
}

/**
 * The positioned graph without counts. The layout is the costly part (hundreds of milliseconds
 * for 200 nodes and 400 edges, `npm run bench dashboard-flow`): the view runs it in a worker
 * (layout.worker.ts), and only when the wiring changes, not on every refresh of the counts.
 */
export function layoutFlowGraph(
  sources: WiringInput["sources"],
  workflows: WiringInput["workflows"],
  subscriptions: WiringInput["subscriptions"],
): FlowGraph {
  const data = new Map<string, FlowNodeData>();
  for (const s of sources) data.set(s.id, { label: s.name, kind: "source", ref: s.id });
  for (const w of workflows) data.set(w.id, { label: w.name, kind: "workflow", ref: w.id });
  const ensure = (id: string) => {
    if (data.has(id)) return;
    if (GLOB_LABEL[id]) data.set(id, { label: GLOB_LABEL[id], kind: "glob", ref: id });
    else data.set(id, { label: id, kind: "missing", ref: id });
  };
  const edges: Edge<FlowEdgeData>[] = [];
  for (const sub of subscriptions) {
    ensure(sub.emitter_id);
    ensure(sub.listener_id);
    edges.push({
      id: `${sub.emitter_id}>${sub.listener_id}>${sub.event_name}`,
      type: "flow",
      source: sub.emitter_id,
      target: sub.listener_id,
      data: { channel: sub.event_name, count: null },
    });
  }

  const g = new dagre.graphlib.Graph();
  // ranksep leaves room for an edge label ("12 events in the last hour") with the arrow visible around it.
  // ranker "tight-tree": ranks as good as the default network simplex on layered wiring (sources
  // feed workflows) at a third of its time for 200 nodes / 400 edges (docs/benchmarks.md).
  g.setGraph({ rankdir: "LR", nodesep: 24, ranksep: 240, marginx: 20, marginy: 20, ranker: "tight-tree" });
  g.setDefaultEdgeLabel(() => ({}));
  for (const id of data.keys()) g.setNode(id, { width: NODE_WIDTH, height: NODE_HEIGHT });
  for (const e of edges) g.setEdge(e.source, e.target);
  dagre.layout(g);

  const nodes: Node<FlowNodeData>[] = [...data].map(([id, d]) => {
    const p = g.node(id);
    return {
      id,
      type: "emitter",
      data: d,
      position: { x: p.x - NODE_WIDTH / 2, y: p.y - NODE_HEIGHT / 2 },
      ariaLabel: `${d.kind === "glob" ? "" : `${d.kind} `}${d.label}`,
      connectable: false,
    };
  });
  return { nodes, edges };
}

/**
 * The laid-out graph with each edge labelled by its emitter's count; the nodes are kept as they
 * are. An edge whose label is what it was in `previous` is that same object, so a refresh of the
 * counts re-renders only the edges whose figure moved (React Flow compares edges by identity).
 */
export function withCounts(graph: FlowGraph, counts: EdgeCounts, previous?: FlowGraph): FlowGraph {
  const labels = new Map(graph.nodes.map((n) => [n.id, n.data.label]));
  const before = new Map((previous?.edges ?? []).map((e) => [e.id, e]));
  const edges = graph.edges.map((e) => {
    const channel = e.data?.channel ?? "";
    const count = counts.counts.get(e.source) ?? null;
    const label = edgeLabel(count, channel, counts.basis);
    const ariaLabel = `${labels.get(e.source)} to ${labels.get(e.target)}${label ? `: ${label}` : ""}`;
    const old = before.get(e.id);
    if (old && old.label === label && old.ariaLabel === ariaLabel && old.source === e.source && old.target === e.target)
      return old;
    return { ...e, label, data: { channel, count }, ariaLabel };
  });
  return { nodes: graph.nodes, edges };
}
