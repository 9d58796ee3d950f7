/**
 * Event inspection in Chromium against a real server (issue 18): the volume chart's counts (its
 * label, its drawn bars and its tooltip, and a live update), a search that finds an event beyond
 * the rows the table loaded, and a replay from the event detail that reaches a listener.
 * Screenshots: e2e/screenshots/inspection-*.png.
 */
import type { BrowserContext, Page } from "@playwright/test";
import type { EventSummary } from "../../shared/resources/index.js";
import { startServer, type TestServer, type TestUser } from "../../test/support/server.js";
import { echoListener, orderEmitter } from "../support/components.js";
import { expect, requireChromium, screenshot, test } from "../support/fixtures.js";
import { closeJourney, openJourney } from "../support/journey.js";
import type { WebHost } from "../support/web-host.js";

requireChromium();

const EMITTER = orderEmitter("e2e-inspected", "Inspected");
const LISTENER = echoListener("e2e-listener");

async function post(url: string, body: unknown): Promise<void> {
  const res = await fetch(url, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
  if (!res.ok) throw new Error(`POST ${url}: ${res.status}`);
}

/** Pixels of the chart's canvas that are neither background nor grid: the bars drawn. */
function barPixels(page: Page): Promise<{ events: number; errors: number }> {
  return page.locator(".volume-plot canvas").evaluate((canvas: HTMLCanvasElement) => {
    const ctx = canvas.getContext("2d")!;
    const { data } = ctx.getImageData(0, 0, canvas.width, canvas.height);
    const style = getComputedStyle(canvas);
    const rgb = (name: string) => {
      const probe = document.createElement("div");
      probe.style.color = style.getPropertyValue(name);
      document.body.appendChild(probe);
      const m = getComputedStyle(probe).color.match(/\d+/g)!.map(Number);
      probe.remove();
      return m;
    };
    const [accent, danger] = [rgb("--accent"), rgb("--danger")];
    const near = (i: number, c: number[]) => Math.abs(data[i]! - c[0]!) < 12 && Math.abs(data[i + 1]! - c[1]!) < 12 && Math.abs(data[i + 2]! - c[2]!) < 12;
    let events = 0;
    let errors = 0;
    for (let i = 0; i < data.length; i += 4) {
      if (near(i, accent)) events++;
      else if (near(i, danger)) errors++;
    }
    return { events, errors };
  });
}

test.describe("event inspection (web mode, a real server)", () => {
  test.describe.configure({ mode: "serial" });
  let server: TestServer;
  let user: TestUser;
  let host: WebHost;
  let context: BrowserContext;
  let page: Page;
  let errors: string[];
  let emitterId: string;
  let listenerId: string;
  let endpoint: string;

  test.beforeAll(async ({ browser }) => {
    test.setTimeout(240_000);
    // Retention above the table's first page (100 rows), so a search has older events to find.
    server = await startServer({ env: { HEADWATER_EVENT_RETENTION: "1000" } });
    user = await server.newUser();
    const emitter = await user.client.createSource({ component_code: EMITTER, name: "orders" });
    const listener = await user.client.createSource({ component_code: LISTENER, name: "order listener" });
    emitterId = emitter.id;
    listenerId = listener.id;
    endpoint = `${server.origin}/e/${emitterId}`;
    await user.client.createSubscription({ emitter_id: emitterId, listener_id: listenerId });
    ({ host, context, page, errors } = await openJourney(browser, { remote: { baseUrl: server.baseUrl, apiKey: user.key }, open: false }));
  });

  test.afterAll(async () => {
    await closeJourney({ context, host });
    await server?.stop();
  });

  test("the volume chart counts events and errors, draws them, and follows live traffic", async () => {
    // The needle first: 150 events later it is far beyond the table's first page.
    await post(endpoint, { n: 0, note: "a rare Needle-7319 inside" });
    for (let n = 1; n < 148; n++) await post(endpoint, { n });
    await post(endpoint, { n: 148, fail: true });
    await post(endpoint, { n: 149, fail: true });
    await expect
      .poll(async () => (await user.client.listSourceEvents(emitterId, { limit: 1 })).page_info.total_count, { timeout: 60_000 })
      .toBe(148);

    await page.goto(host.url);
    await page.getByRole("list", { name: "Source list" }).getByRole("link", { name: /^orders/ }).click();
    const chart = page.getByRole("img", { name: /^Event volume/ });
    await expect(chart).toHaveAttribute("aria-label", "Event volume, last hour: 148 events, 2 errors", { timeout: 30_000 });
    // The bars are on the canvas: blue for events, red for errors.
    await expect.poll(async () => (await barPixels(page)).events, { timeout: 10_000 }).toBeGreaterThan(20);
    expect((await barPixels(page)).errors).toBeGreaterThan(0);

    // The tooltip of the newest bucket (the right end of the plot) holds its counts.
    const box = (await page.locator(".volume-plot .u-over").boundingBox())!;
    await page.mouse.move(box.x + box.width - 3, box.y + box.height / 2);
    const tip = page.getByRole("tooltip");
    await expect(tip).toContainText(/\d+ events?/);
    await expect(tip).toContainText(/\d+ errors?/);
    await screenshot(page, "inspection-01-volume-chart");

    // Live: one more event shows in the totals without a reload.
    await post(endpoint, { n: 150 });
    await expect(chart).toHaveAttribute("aria-label", "Event volume, last hour: 149 events, 2 errors", { timeout: 20_000 });
    await page.getByRole("button", { name: "24 h" }).click();
    await expect(chart).toHaveAttribute("aria-label", "Event volume, last 24 hours: 149 events, 2 errors");
    await page.getByRole("button", { name: "1 h" }).click();
    expect(errors).toEqual([]);
  });

  test("the search box finds an event beyond the loaded rows, then clearing it returns to the live table", async () => {
    const grid = page.getByRole("grid", { name: /^Events of dc_/ });
    const rows = grid.locator("[role=row][data-event-id]");
    const needle = (await user.client.listSourceEvents(emitterId, { q: "needle-7319" })).data[0] as EventSummary;
    expect(needle).toBeDefined();
    // The table has loaded the newest 100: the needle is not among them.
    await expect(page.getByRole("toolbar", { name: "Event controls" })).toContainText(/\d+ events/);
    await expect(grid.locator(`[data-event-id="${needle.id}"]`)).toHaveCount(0);

    const box = page.getByRole("searchbox", { name: "Search events" });
    await box.fill("NEEDLE-7319");
    await expect(rows).toHaveCount(1, { timeout: 15_000 });
    await expect(grid.locator(`[data-event-id="${needle.id}"]`)).toBeVisible();
    await expect(page.getByRole("toolbar", { name: "Event controls" })).toContainText("1 match");
    await screenshot(page, "inspection-02-search-beyond-first-page");

    // A live event that matches joins the results.
    await post(endpoint, { n: 151, note: "needle-7319 again" });
    await expect(rows).toHaveCount(2, { timeout: 20_000 });

    await box.fill("");
    await expect.poll(() => rows.count(), { timeout: 10_000 }).toBeGreaterThan(2);
    await expect(grid.locator(`[data-event-id="${needle.id}"]`)).toHaveCount(0);
  });

  test("Replay in the event detail delivers the event again to the listener", async () => {
    const grid = page.getByRole("grid", { name: /^Events of dc_/ });
    const target = (await user.client.listSourceEvents(emitterId, { q: "order 42", limit: 1 })).data[0]!;
    const before = (await user.client.listSourceEvents(listenerId, { limit: 1 })).page_info.total_count;

    await page.getByRole("searchbox", { name: "Search events" }).fill(`"n":42}`);
    await grid.locator(`[data-event-id="${target.id}"]`).click();
    const pane = page.getByRole("complementary", { name: `Event ${target.id}` });
    await pane.getByRole("button", { name: "Replay" }).click();
    const dialog = page.getByRole("dialog", { name: "Replay this event" });
    await expect(dialog.getByRole("radio", { name: "All listeners (1)" })).toBeChecked();
    await expect(dialog.getByRole("radio", { name: /order listener/ })).toBeVisible();
    await dialog.getByRole("button", { name: "Replay event" }).click();
    await expect(dialog.getByRole("status")).toHaveText("Queued 1 event for 1 listener: 1 delivery.");
    await expect(page.getByText("Replay queued: 1 event, 1 delivery")).toBeVisible();
    await screenshot(page, "inspection-03-replay-queued");

    // The listener received it again: the same data as the first time.
    await expect
      .poll(async () => (await user.client.listSourceEvents(listenerId, { limit: 1 })).page_info.total_count, { timeout: 30_000 })
      .toBe(before + 1);
    const [got] = (await user.client.listSourceEvents(listenerId, { limit: 1, expand: "event" })).data;
    expect(got!.event).toEqual({ got: { n: 42 } });
    await dialog.getByRole("button", { name: "Close" }).first().click();
    expect(errors).toEqual([]);
  });
});
