import { describe, expect, it } from "vitest";
import { makeSource, makeWorkflow } from "../../test/fakeBridge.js";
import { buildFlowGraph, edgeLabel, layoutFlowGraph, withCounts } from "./graph.js";

const sub = (emitter_id: string, listener_id: string, event_name = "") => ({
  id: `sub_${emitter_id}_${listener_id}_${event_name}`,
  emitter_id,
  listener_id,
  event_name,
  created_at: 1,
});

describe("buildFlowGraph", () => {
  it("draws every source and workflow, subscriptions as edges left to right, globs as their own node", () => {
    const { nodes, edges } = buildFlowGraph(
      [makeSource(1, { name: "Orders" }), makeSource(2, { name: "Idle" })],
      [makeWorkflow(1, { name: "Notify" })],
      [sub("dc_src1", "p_wf1"), sub("p_*", "dc_src2", "$errors")],
      { counts: new Map([["dc_src1", 12]]), basis: "hour" },
    );
    expect(nodes.map((n) => [n.id, n.data.kind, n.data.label]).sort()).toEqual([
      ["dc_src1", "source", "Orders"],
      ["dc_src2", "source", "Idle"],
      ["p_*", "glob", "All workflows"],
      ["p_wf1", "workflow", "Notify"],
    ]);
    const pos = new Map(nodes.map((n) => [n.id, n.position.x]));
    expect(pos.get("dc_src1")!).toBeLessThan(pos.get("p_wf1")!);
    expect(pos.get("p_*")!).toBeLessThan(pos.get("dc_src2")!);
    expect(edges.map((e) => [e.source, e.target, e.label, e.ariaLabel])).toEqual([
      ["dc_src1", "p_wf1", "12 events in the last hour", "Orders to Notify: 12 events in the last hour"],
      ["p_*", "dc_src2", "$errors", "All workflows to Idle: $errors"],
    ]);
  });

  it("says which count it shows", () => {
    expect(edgeLabel(1, "", "hour")).toBe("1 event in the last hour");
    expect(edgeLabel(1500, "orders", "retained")).toBe("1,500 events · orders");
    expect(edgeLabel(null, "", "hour")).toBe("");
  });

  it("lays out 200 nodes and 400 edges", () => {
    const sources = Array.from({ length: 150 }, (_, i) => makeSource(i));
    const workflows = Array.from({ length: 50 }, (_, i) => makeWorkflow(i));
    const subs = Array.from({ length: 400 }, (_, i) =>
      sub(`dc_src${i % 150}`, `p_wf${(i * 7) % 50}`, i < 150 ? "" : `c${i}`),
    );
    const { nodes, edges } = buildFlowGraph(sources, workflows, subs);
    expect(nodes).toHaveLength(200);
    expect(edges).toHaveLength(400);
    expect(new Set(nodes.map((n) => `${n.position.x},${n.position.y}`)).size).toBe(200);
  });

  it("relabels the edges with new counts without laying the nodes out again", () => {
    const layout = layoutFlowGraph([makeSource(1, { name: "Orders" })], [makeWorkflow(1, { name: "Notify" })], [sub("dc_src1", "p_wf1")]);
    expect(layout.edges[0]!.label).toBeUndefined();
    const counted = withCounts(layout, { counts: new Map([["dc_src1", 3]]), basis: "retained" });
    expect(counted.nodes).toBe(layout.nodes);
    expect(counted.edges.map((e) => [e.label, e.ariaLabel])).toEqual([["3 events", "Orders to Notify: 3 events"]]);
  });

  it("hands back the same edge object when its label did not move, a new one when it did", () => {
    const layout = layoutFlowGraph(
      [makeSource(1, { name: "Orders" }), makeSource(2, { name: "Refunds" })],
      [makeWorkflow(1, { name: "Notify" })],
      [sub("dc_src1", "p_wf1"), sub("dc_src2", "p_wf1")],
    );
    const first = withCounts(layout, { counts: new Map([["dc_src1", 3], ["dc_src2", 5]]), basis: "hour" });
    const next = withCounts(layout, { counts: new Map([["dc_src1", 3], ["dc_src2", 6]]), basis: "hour" }, first);
    expect(next.edges[0]).toBe(first.edges[0]);
    expect(next.edges[1]).not.toBe(first.edges[1]);
    expect(next.edges[1]!.label).toBe("6 events in the last hour");
    // Without a previous graph every edge is new.
    expect(withCounts(layout, { counts: new Map([["dc_src1", 3]]), basis: "hour" }).edges[0]).not.toBe(first.edges[0]);
  });

  it("draws every edge with the flow view's own edge type", () => {
    const layout = layoutFlowGraph([makeSource(1)], [makeWorkflow(1)], [sub("dc_src1", "p_wf1")]);
    expect(layout.edges.map((e) => e.type)).toEqual(["flow"]);
  });
});
