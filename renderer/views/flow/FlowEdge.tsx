/**
 * An arrow of the flow view: a bezier from emitter to listener and its label, drawn as a plain
 * path and one SVG text. React Flow's default edge measures every label with getBBox after it
 * mounts and draws a background rect from it: a forced layout and a second render per edge, 400
 * of them at the size the bench measures. Here the text carries its own background, a stroke in
 * the panel's colour painted under the glyphs (flow.css), so nothing is measured. The wrapper
 * React Flow puts around it keeps the edge's accessible name ("A to B: 12 events…").
 */
import { getBezierPath, useStore, type Edge, type EdgeProps } from "@xyflow/react";
import { memo, useEffect } from "react";
import type { FlowEdgeData } from "./graph.js";

export const FlowEdge = memo(function FlowEdge(props: EdgeProps<Edge<FlowEdgeData>>) {
  const [path, labelX, labelY] = getBezierPath(props);
  const label = typeof props.label === "string" ? props.label : "";
  return (
    <>
      <path className="react-flow__edge-path" d={path} fill="none" markerEnd={props.markerEnd} />
      {label ? (
        <text className="flow-edge-label" x={labelX} y={labelY} aria-hidden="true">
          {label}
        </text>
      ) : null}
    </>
  );
});

/** Below this zoom the labels are too small to read (12 px at 0.5 is 6 px): they are not drawn. */
export const LABEL_MIN_ZOOM = 0.5;

/**
 * Marks the canvas "flow-far" while zoomed out below LABEL_MIN_ZOOM, so CSS hides the edge labels
 * there. A boolean from the store: it changes once when the threshold is crossed, not every frame
 * of a zoom, and nothing else re-renders for it.
 */
export function FarZoomClass() {
  const far = useStore((s) => s.transform[2] < LABEL_MIN_ZOOM);
  const dom = useStore((s) => s.domNode);
  useEffect(() => {
    dom?.classList.toggle("flow-far", far);
  }, [dom, far]);
  return null;
}
