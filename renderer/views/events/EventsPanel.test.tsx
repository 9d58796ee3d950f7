// @vitest-environment happy-dom
import { act, fireEvent, screen, waitFor, within } from "@testing-library/react";
import { userEvent } from "@testing-library/user-event";
import { describe, expect, it } from "vitest";
import { FakeBridge, makeEvent, makeSource } from "../../test/fakeBridge.js";
import { renderWith } from "../../test/render.js";
import { absoluteTime } from "../../state/format.js";
import { EventsPanel } from "./EventsPanel.js";

const SRC = "dc_src1";

function setup(count = 6) {
  const bridge = new FakeBridge();
  bridge.sources = [makeSource(1)];
  bridge.events.set(
    SRC,
    Array.from({ length: count }, (_, i) => makeEvent(SRC, 1_000 + i)),
  );
  renderWith(bridge, <EventsPanel kind="source" emitterId={SRC} name="Source 1" />);
  return bridge;
}

const grid = () => screen.getByRole("grid");
const rowIds = () =>
  within(grid())
    .getAllByRole("row")
    .map((r) => r.getAttribute("data-event-id"))
    .filter(Boolean);
const row = (id: string) => within(grid()).getByText(`event ${id}`).closest("[role=row]") as HTMLElement;

describe("events table", () => {
  it("shows the newest page newest first and adds a pushed batch without a reload", async () => {
    const bridge = setup(3);
    await waitFor(() => expect(rowIds()).toEqual(["1002-0", "1001-0", "1000-0"]));
    const watchId = bridge.watchOf(SRC);
    expect(watchId).toBeDefined();
    act(() => bridge.pushBatch(watchId!, [makeEvent(SRC, 2000), makeEvent(SRC, 2001)]));
    expect(rowIds()).toEqual(["2001-0", "2000-0", "1002-0", "1001-0", "1000-0"]);
    expect(bridge.callsOf("listSourceEvents")).toHaveLength(1);
  });

  it("selects a range with shift-click and deletes it with start_id/end_id, updating the table", async () => {
    const bridge = setup(6);
    await waitFor(() => expect(rowIds()).toHaveLength(6));
    // Click a newer row first, then shift-click an older one: the bounds still go oldest → newest.
    await userEvent.click(row("1004-0"));
    fireEvent.click(row("1002-0"), { shiftKey: true });
    expect(
      within(grid())
        .getAllByRole("row", { selected: true })
        .map((r) => r.getAttribute("data-event-id")),
    ).toEqual(["1004-0", "1003-0", "1002-0"]);
    await userEvent.click(screen.getByRole("button", { name: "Delete 3 events" }));
    const dialog = screen.getByRole("dialog", { name: "Delete 3 events?" });
    // The range is said by its events' times (to the millisecond), the ids on hover.
    const from = absoluteTime(1002, { ms: true });
    const to = absoluteTime(1004, { ms: true });
    expect(within(dialog).getByText(/Every event of/).textContent).toMatch(
      new RegExp(`^Every event of Source 1 from ${from} to ${to} \\(inclusive\\)`),
    );
    expect(within(dialog).getByText(from).getAttribute("title")).toBe("event 1002-0");
    await userEvent.click(within(dialog).getByRole("button", { name: "Delete 3 events" }));
    await waitFor(() => expect(screen.queryByRole("dialog")).toBeNull());
    expect(bridge.callsOf("deleteSourceEvents")).toEqual([
      [SRC, { start_id: "1002-0", end_id: "1004-0", event_name: undefined }],
    ]);
    expect(rowIds()).toEqual(["1005-0", "1001-0", "1000-0"]);
  });

  it("keeps the selection and shows the error when the delete fails", async () => {
    const bridge = setup(3);
    await waitFor(() => expect(rowIds()).toHaveLength(3));
    await userEvent.click(row("1001-0"));
    bridge.fail("deleteSourceEvents", { status: 404, code: "not_found", message: "No source dc_src1." });
    await userEvent.click(screen.getByRole("button", { name: "Delete 1 event" }));
    const dialog = screen.getByRole("dialog");
    await userEvent.click(within(dialog).getByRole("button", { name: "Delete event" }));
    const alert = await within(dialog).findByRole("alert");
    expect(alert.textContent).toContain("No source dc_src1.");
    expect(rowIds()).toHaveLength(3);
  });

  it("deletes everything after confirmation", async () => {
    const bridge = setup(4);
    await waitFor(() => expect(rowIds()).toHaveLength(4));
    await userEvent.click(screen.getByRole("button", { name: "Delete all" }));
    await userEvent.click(
      within(screen.getByRole("dialog")).getByRole("button", { name: "Delete all events" }),
    );
    await waitFor(() => expect(screen.getByText(/No events yet/)).toBeTruthy());
    expect(bridge.callsOf("deleteSourceEvents")).toEqual([[SRC, { event_name: undefined }]]);
  });

  it("pauses: new events are counted, not shown, until resumed", async () => {
    const bridge = setup(1);
    await waitFor(() => expect(rowIds()).toHaveLength(1));
    await userEvent.click(screen.getByRole("button", { name: /Pause/ }));
    // Its place is kept from the pause on, but nothing is offered before an event arrives.
    expect(screen.queryByRole("button", { name: /new$/ })).toBeNull();
    act(() => bridge.pushBatch(bridge.watchOf(SRC)!, [makeEvent(SRC, 3000), makeEvent(SRC, 3001)]));
    expect(rowIds()).toEqual(["1000-0"]);
    await userEvent.click(screen.getByRole("button", { name: "2 new" }));
    expect(rowIds()).toEqual(["3001-0", "3000-0", "1000-0"]);
  });

  it("moves with the arrow keys and opens the full event with Enter", async () => {
    const bridge = setup(3);
    await waitFor(() => expect(rowIds()).toHaveLength(3));
    grid().focus();
    await userEvent.keyboard("{ArrowDown}{ArrowDown}{Enter}");
    const pane = await screen.findByRole("complementary", { name: "Event 1001-0" });
    await waitFor(() => expect(bridge.callsOf("getSourceEvent")).toEqual([[SRC, "1001-0", undefined]]));
    expect(within(pane).getByRole("button", { name: "Copy JSON of this event" })).toBeTruthy();
    expect(within(pane).getByRole("tree", { name: "Event data" }).textContent).toContain("1001");
  });

  it("searches by text (the summary here; see inspection.test.tsx for the server search)", async () => {
    setup(12);
    await waitFor(() => expect(rowIds()).toHaveLength(12));
    await userEvent.type(screen.getByRole("searchbox", { name: "Search events" }), "1003-0");
    await waitFor(() => expect(rowIds()).toEqual(["1003-0"]));
  });

  it("says so when the live feed is refused", async () => {
    const bridge = setup(1);
    await waitFor(() => expect(rowIds()).toHaveLength(1));
    act(() =>
      bridge.pushState({
        watchId: bridge.watchOf(SRC)!,
        state: "unauthorized",
        status: 401,
        message: "The API key was refused.",
      }),
    );
    const alert = await screen.findByRole("alert");
    expect(alert.textContent).toContain("The API key was refused.");
  });

  it("shows a connection state reported before the watch id was known", async () => {
    const bridge = new FakeBridge();
    bridge.sources = [makeSource(1)];
    const release = bridge.hold("watch");
    renderWith(bridge, <EventsPanel kind="source" emitterId={SRC} />);
    await waitFor(() => expect(bridge.callsOf("watch")).toHaveLength(1));
    act(() => bridge.pushState({ watchId: "w1", state: "open" }));
    expect(screen.getByText("Connecting…")).toBeTruthy();
    await act(async () => release());
    await waitFor(() => expect(screen.getByText("Live")).toBeTruthy());
  });

  it("says an inactive source's open feed is paused, not a green Live", async () => {
    const bridge = new FakeBridge();
    bridge.sources = [makeSource(1, { active: false })];
    renderWith(bridge, <EventsPanel kind="source" emitterId={SRC} name="Source 1" inactive />);
    await waitFor(() => expect(bridge.watchOf(SRC)).toBeDefined());
    act(() => bridge.pushState({ watchId: bridge.watchOf(SRC)!, state: "open" }));
    const pill = await screen.findByText("Inactive: paused");
    expect(pill.getAttribute("title")).toBe("This source is inactive: it emits nothing until it is activated");
    expect(pill.className).toContain("paused");
    expect(screen.queryByText("Live")).toBeNull();
  });

  it("previews an HTTP request's body after its method and path, so requests to one endpoint differ", async () => {
    const bridge = new FakeBridge();
    bridge.sources = [makeSource(1)];
    const request = (ms: number, body: unknown) => {
      const e = makeEvent(SRC, ms);
      return { ...e, event: { method: "POST", path: "/", headers: {}, body }, metadata: { ...e.metadata, summary: "POST /" } };
    };
    bridge.events.set(SRC, [request(1000, { order: 7, total: 12.5 }), request(1001, "x".repeat(200)), request(1002, undefined)]);
    renderWith(bridge, <EventsPanel kind="source" emitterId={SRC} />);
    await waitFor(() => expect(rowIds()).toHaveLength(3));
    const summaries = within(grid())
      .getAllByRole("row")
      .slice(1)
      .map((r) => r.querySelector(".c-summary")!.textContent);
    expect(summaries).toEqual(["POST /", `POST / ${"x".repeat(79)}…`, 'POST / {"order":7,"total":12.5}']);
  });
});
