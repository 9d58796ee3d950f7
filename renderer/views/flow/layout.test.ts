import { afterEach, describe, expect, it, vi } from "vitest";
import { makeSource, makeWorkflow } from "../../test/fakeBridge.js";
import { layoutFlowGraph } from "./graph.js";

const input = {
  sources: [makeSource(1, { name: "Orders" })],
  workflows: [makeWorkflow(1, { name: "Notify" })],
  subscriptions: [{ emitter_id: "dc_src1", listener_id: "p_wf1", event_name: "" }],
};
const expected = layoutFlowGraph(input.sources, input.workflows, input.subscriptions);

afterEach(() => {
  vi.unstubAllGlobals();
  vi.resetModules();
});

describe("layoutInWorker", () => {
  it("lays out on the page when there is no Worker", async () => {
    vi.stubGlobal("Worker", undefined);
    const { layoutInWorker } = await import("./layout.js");
    expect(await layoutInWorker(input)).toEqual(expected);
  });

  it("finishes on the page what a worker that failed to load was asked, and does not use it again", async () => {
    const started: FakeWorker[] = [];
    class FakeWorker {
      onmessage: ((e: MessageEvent) => void) | null = null;
      onerror: ((e: ErrorEvent) => void) | null = null;
      terminated = false;
      constructor() {
        started.push(this);
      }
      postMessage() {
        queueMicrotask(() => this.onerror?.({ preventDefault() {} } as ErrorEvent));
      }
      terminate() {
        this.terminated = true;
      }
    }
    vi.stubGlobal("Worker", FakeWorker);
    const { layoutInWorker } = await import("./layout.js");
    expect(await layoutInWorker(input)).toEqual(expected);
    expect(await layoutInWorker(input)).toEqual(expected);
    expect(started).toHaveLength(1);
    expect(started[0]!.terminated).toBe(true);
  });

  it("takes the worker's answer to each request by its id", async () => {
    class EchoWorker {
      onmessage: ((e: MessageEvent) => void) | null = null;
      onerror: ((e: ErrorEvent) => void) | null = null;
      postMessage(req: { id: number; sources: unknown[] }) {
        // Answers out of order: the second request first.
        const graph = { nodes: [{ id: `n${req.sources.length}` }], edges: [] };
        setTimeout(() => this.onmessage?.({ data: { id: req.id, graph } } as MessageEvent), req.id === 1 ? 20 : 0);
      }
      terminate() {}
    }
    vi.stubGlobal("Worker", EchoWorker);
    const { layoutInWorker } = await import("./layout.js");
    const [a, b] = await Promise.all([
      layoutInWorker(input),
      layoutInWorker({ ...input, sources: [...input.sources, makeSource(2)] }),
    ]);
    expect(a.nodes[0]!.id).toBe("n1");
    expect(b.nodes[0]!.id).toBe("n2");
  });
});
