// @vitest-environment happy-dom
/**
 * Event inspection in the events panel, against the fake bridge: the volume chart's label and
 * ranges, the search box asking the server (and adding live matches), and replays.
 */
import { act, fireEvent, screen, waitFor, within } from "@testing-library/react";
import { userEvent } from "@testing-library/user-event";
import { describe, expect, it } from "vitest";
import type { EventSummary } from "../../../shared/resources/index.js";
import { FakeBridge, makeEvent, makeSource } from "../../test/fakeBridge.js";
import { renderWith } from "../../test/render.js";
import { useToasts } from "../../ui/Toasts.js";
import { EventsPanel } from "./EventsPanel.js";
import { volumeLabel } from "./volume.js";

const SRC = "dc_src1";

function setup(events: EventSummary[] = Array.from({ length: 6 }, (_, i) => makeEvent(SRC, 1_000 + i))) {
  const bridge = new FakeBridge();
  bridge.sources = [makeSource(1), makeSource(2, { id: "dc_other", name: "mirror" })];
  bridge.events.set(SRC, events);
  renderWith(bridge, <EventsPanel kind="source" emitterId={SRC} />);
  return bridge;
}

const grid = () => screen.getByRole("grid");
const rowIds = () =>
  within(grid())
    .getAllByRole("row")
    .map((r) => r.getAttribute("data-event-id"))
    .filter(Boolean);
const row = (id: string) => within(grid()).getByText(`event ${id}`).closest("[role=row]") as HTMLElement;

describe("volume chart", () => {
  it("states the totals of the last hour, and asks for hourly buckets over 24 h", async () => {
    const bridge = new FakeBridge();
    bridge.sources = [makeSource(1)];
    const point = (t: number, events: number, errors: number) => ({ t, events, errors, logs: 0, invocations: events, compute_ms: 0 });
    bridge.stats.set(SRC, [point(0, 1000, 0), point(60_000, 500, 3), point(120_000, 0, 0)]);
    renderWith(bridge, <EventsPanel kind="source" emitterId={SRC} />);
    await screen.findByRole("img", { name: "Event volume, last hour: 1,500 events, 3 errors" });
    const [[id, q]] = bridge.callsOf("getSourceStats") as [[string, { since: number; until: number; bucket: string }]];
    expect(id).toBe(SRC);
    expect(q.bucket).toBe("minute");
    expect(q.until - q.since).toBe(3_600_000);

    await userEvent.click(screen.getByRole("button", { name: "24 h" }));
    await screen.findByRole("img", { name: "Event volume, last 24 hours: 1,500 events, 3 errors" });
    const last = bridge.callsOf("getSourceStats").at(-1) as [string, { since: number; until: number; bucket: string }];
    expect(last[1].bucket).toBe("hour");
    expect(last[1].until - last[1].since).toBe(86_400_000);
    expect(screen.getByRole("button", { name: "24 h" }).getAttribute("aria-pressed")).toBe("true");
  });

  it("refetches the counts when live events arrive", async () => {
    const bridge = setup();
    await waitFor(() => expect(rowIds()).toHaveLength(6));
    await screen.findByRole("img", { name: /^Event volume, last hour: 0 events, 0 errors$/ });
    const before = bridge.callsOf("getSourceStats").length;
    bridge.stats.set(SRC, [{ t: 0, events: 1, errors: 0, logs: 0, invocations: 1, compute_ms: 3 }]);
    act(() => bridge.pushBatch(bridge.watchOf(SRC)!, [makeEvent(SRC, 5000)]));
    await screen.findByRole("img", { name: "Event volume, last hour: 1 event, 0 errors" }, { timeout: 3000 });
    expect(bridge.callsOf("getSourceStats").length).toBe(before + 1);
  });

  it("words the label for one and many", () => {
    expect(volumeLabel("7d", [{ t: 0, events: 1, errors: 1 }])).toBe("Event volume, last 7 days: 1 event, 1 error");
  });
});

describe("search", () => {
  it("asks the server (debounced) and finds an event the table has not loaded; live matches join; clearing returns", async () => {
    // 150 events: the table loads the newest 100; the needle is in the oldest.
    const events = Array.from({ length: 150 }, (_, i) => makeEvent(SRC, 1_000 + i));
    events[0] = { ...events[0]!, event: { note: "the Needle in the stack" } };
    const bridge = setup(events);
    // (The table renders only the rows in view: the count says how many it holds.)
    await screen.findByText("100 events");
    expect(rowIds()).not.toContain("1000-0");

    const box = screen.getByRole("searchbox", { name: "Search events" });
    await userEvent.type(box, "needle");
    await waitFor(() => expect(rowIds()).toEqual(["1000-0"]));
    // One server call for the whole word, not one per key.
    const searches = bridge.callsOf("listSourceEvents").filter(([, q]) => (q as { q?: string }).q !== undefined);
    expect(searches).toEqual([[SRC, { q: "needle", limit: 100, after: undefined, event_name: undefined }]]);
    expect(screen.getByText("1 match")).toBeTruthy();

    // A live event that matches appears on top; one that does not, does not.
    const hit = { ...makeEvent(SRC, 9000), event: { text: "another NEEDLE" } };
    act(() => bridge.pushBatch(bridge.watchOf(SRC)!, [makeEvent(SRC, 8000), hit]));
    await waitFor(() => expect(rowIds()).toEqual(["9000-0", "1000-0"]));
    expect(screen.getByText("2 matches")).toBeTruthy();

    await userEvent.clear(box);
    await screen.findByText("102 events");
    expect(rowIds().slice(0, 2)).toEqual(["9000-0", "8000-0"]);
  });

  it("says when nothing matches", async () => {
    setup();
    await waitFor(() => expect(rowIds()).toHaveLength(6));
    await userEvent.type(screen.getByRole("searchbox"), "zzz");
    await screen.findByText("No retained event matches “zzz”.");
  });
});

describe("replay", () => {
  const subscribe = (bridge: FakeBridge) => {
    bridge.subscriptions = [
      { id: "sub_1", emitter_id: SRC, listener_id: "dc_other", event_name: "" },
      { id: "sub_2", emitter_id: SRC, listener_id: "p_flow", event_name: "" },
      { id: "sub_3", emitter_id: SRC, listener_id: "p_logs", event_name: "$logs" },
    ];
  };

  it("replays one event from its detail to one listener and says what was queued", async () => {
    const bridge = setup();
    subscribe(bridge);
    await waitFor(() => expect(rowIds()).toHaveLength(6));
    await userEvent.click(row("1003-0"));
    await userEvent.click(within(screen.getByRole("complementary", { name: "Event 1003-0" })).getByRole("button", { name: "Replay" }));
    const dialog = await screen.findByRole("dialog", { name: "Replay this event" });
    // The channel's listeners (not the $logs one), all or one.
    await within(dialog).findByRole("radio", { name: "All listeners (2)" });
    expect(within(dialog).getAllByRole("radio").map((r) => r.closest("label")!.textContent)).toEqual(["All listeners (2)", "mirror dc_other", "p_flow"]);
    await userEvent.click(within(dialog).getByRole("radio", { name: /mirror/ }));
    await userEvent.click(within(dialog).getByRole("button", { name: "Replay event" }));
    expect((await within(dialog).findByRole("status")).textContent).toBe("Queued 1 event for mirror: 1 delivery.");
    expect(bridge.callsOf("replaySourceEvents")).toEqual([[SRC, { start_id: "1003-0", end_id: "1003-0", event_name: undefined, listener_id: "dc_other" }]]);
    expect(useToasts.getState().toasts.map((t) => t.text)).toContain("Replay queued: 1 event, 1 delivery");
  });

  it("replays a selected range to every listener", async () => {
    const bridge = setup();
    subscribe(bridge);
    await waitFor(() => expect(rowIds()).toHaveLength(6));
    await userEvent.click(row("1004-0"));
    fireEvent.click(row("1001-0"), { shiftKey: true });
    await userEvent.click(screen.getByRole("button", { name: "Replay 4 events" }));
    const dialog = await screen.findByRole("dialog", { name: "Replay 4 events" });
    await within(dialog).findByRole("radio", { name: "All listeners (2)" });
    await userEvent.click(within(dialog).getByRole("button", { name: "Replay 4 events" }));
    expect((await within(dialog).findByRole("status")).textContent).toBe("Queued 4 events for 2 listeners: 8 deliveries.");
    expect(bridge.callsOf("replaySourceEvents")).toEqual([[SRC, { start_id: "1001-0", end_id: "1004-0", event_name: undefined }]]);
  });

  it("shows the server's message when the replay is refused", async () => {
    const bridge = setup();
    subscribe(bridge);
    await waitFor(() => expect(rowIds()).toHaveLength(6));
    await userEvent.click(row("1002-0"));
    await userEvent.click(screen.getByRole("button", { name: "Replay" }));
    const dialog = await screen.findByRole("dialog");
    await within(dialog).findByRole("radio", { name: "All listeners (2)" });
    bridge.fail("replaySourceEvents", { status: 429, code: "quota_exceeded", message: "Daily invocations quota reached." });
    await userEvent.click(within(dialog).getByRole("button", { name: "Replay event" }));
    expect((await within(dialog).findByRole("alert")).textContent).toContain("Daily invocations quota reached.");
  });

  it("says when nothing listens, and offers no replay", async () => {
    setup();
    await waitFor(() => expect(rowIds()).toHaveLength(6));
    await userEvent.click(row("1002-0"));
    await userEvent.click(screen.getByRole("button", { name: "Replay" }));
    const dialog = await screen.findByRole("dialog");
    await within(dialog).findByText(/Nothing listens to this channel/);
    expect((within(dialog).getByRole("button", { name: "Replay event" }) as HTMLButtonElement).disabled).toBe(true);
  });
});

describe("a workflow's events", () => {
  it("charts, searches and replays through the workflow's own endpoints", async () => {
    const WF = "p_flow1";
    const bridge = new FakeBridge();
    bridge.events.set(WF, [makeEvent(WF, 3002), makeEvent(WF, 3001), { ...makeEvent(WF, 3000), event: { city: "Lisbon" } }]);
    bridge.stats.set(WF, [{ t: 0, events: 3, errors: 1, logs: 0, invocations: 4, compute_ms: 9 }]);
    bridge.subscriptions = [{ id: "sub_1", emitter_id: "p_*", listener_id: "dc_sink", event_name: "" }];
    renderWith(bridge, <EventsPanel kind="workflow" emitterId={WF} />);
    await screen.findByRole("img", { name: "Event volume, last hour: 3 events, 1 error" });
    expect(bridge.callsOf("getWorkflowStats")[0]![0]).toBe(WF);

    await userEvent.type(screen.getByRole("searchbox", { name: "Search events" }), "lisbon");
    await waitFor(() => expect(rowIds()).toEqual(["3000-0"]));
    expect(bridge.callsOf("listWorkflowEvents").some(([, q]) => (q as { q?: string }).q === "lisbon")).toBe(true);

    await userEvent.click(within(grid()).getByText("event 3000-0"));
    await userEvent.click(screen.getByRole("button", { name: "Replay" }));
    const dialog = await screen.findByRole("dialog", { name: "Replay this event" });
    // A listener of every workflow (p_*) listens to this one too.
    await within(dialog).findByRole("radio", { name: "All listeners (1)" });
    await userEvent.click(within(dialog).getByRole("button", { name: "Replay event" }));
    await within(dialog).findByRole("status");
    expect(bridge.callsOf("replayWorkflowEvents")).toEqual([[WF, { start_id: "3000-0", end_id: "3000-0", event_name: undefined }]]);
  });
});
