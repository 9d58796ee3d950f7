/**
 * The dashboard's views beyond the newcomer journey of dashboard.test.ts, in Chromium against
 * web mode and real servers: a source from pasted code with the generated form; the active
 * switch surviving a reload; pause with its "N new" counter, keyboard navigation, the detail
 * pane (full event), deleting one event and all events; a workflow; and a launch whose key is
 * refused. Each step writes a screenshot to e2e/screenshots/ (views-*.png).
 */
import type { BrowserContext, Page } from "@playwright/test";
import { expect, requireChromium, screenshot, test } from "../support/fixtures.js";
import { closeJourney, openJourney } from "../support/journey.js";
import { startWebHost, type WebHost } from "../support/web-host.js";

requireChromium();

/** Ids of the event rows the table shows, top (newest) first. */
function eventRowIds(page: Page): Promise<string[]> {
  return page
    .locator("[role=grid] [role=row][data-event-id]")
    .evaluateAll((rows) => rows.map((r) => r.getAttribute("data-event-id") ?? ""));
}

test.describe("dashboard views (web mode, local profile)", () => {
  // One page through the steps, in order: each starts where the last one left it.
  test.describe.configure({ mode: "serial" });
  let host: WebHost;
  let context: BrowserContext;
  let page: Page;
  let errors: string[];

  test.beforeAll(async ({ browser }) => {
    test.setTimeout(180_000);
    ({ host, context, page, errors } = await openJourney(browser, { viewport: { width: 1280, height: 800 } }));
  });

  test.afterAll(async () => {
    await closeJourney({ context, host });
  });

  test("creates a source from pasted code with the generated form, and its events arrive", async () => {
    await page.getByRole("grid").waitFor({ timeout: 60_000 });
    await page.getByRole("button", { name: "+ New source" }).click();
    const dialog = page.getByRole("dialog");
    await dialog.getByRole("tab", { name: "Paste code" }).click();
    await dialog.getByRole("button", { name: "Save code and continue" }).click();
    await dialog.getByLabel("timer: interval in seconds").fill("1");
    await dialog.getByLabel("Greeting").fill("hello from e2e");
    await dialog.getByLabel("Name", { exact: true }).fill("e2e greeter");
    await screenshot(page, "views-01-create-from-code-form");
    await dialog.getByRole("button", { name: "Create source" }).click();
    await page.getByRole("heading", { name: "e2e greeter", level: 2 }).waitFor({ timeout: 20_000 });
    await expect
      .poll(async () => (await eventRowIds(page)).length, { timeout: 30_000, intervals: [500] })
      .toBeGreaterThanOrEqual(3);
    expect(await page.getByRole("grid").getByText("hello from e2e").count()).toBeGreaterThan(0);
    await screenshot(page, "views-02-source-from-code-events");
    expect(errors).toEqual([]);
  });

  test("pauses the feed, counts what arrives, and shows it on resume", async () => {
    await page.getByRole("button", { name: /Pause/ }).click();
    const frozen = await eventRowIds(page);
    const counter = page.getByRole("button", { name: /^\d+ new$/ });
    await counter.waitFor({ timeout: 15_000 });
    expect(await eventRowIds(page)).toEqual(frozen);
    await screenshot(page, "views-03-paused-with-new-counter");
    const n = Number((await counter.innerText()).split(" ")[0]);
    await counter.click();
    const resumed = await eventRowIds(page);
    expect(resumed.length).toBeGreaterThanOrEqual(frozen.length + n);
    expect(resumed.slice(-frozen.length)).toEqual(frozen);
  });

  test("moves with the keyboard, opens the full event with Enter, and deletes that one event", async () => {
    await page.getByRole("button", { name: /Pause/ }).click();
    const ids = await eventRowIds(page);
    await page.getByRole("grid").focus();
    await page.keyboard.press("ArrowDown");
    await page.keyboard.press("ArrowDown");
    await page.keyboard.press("Enter");
    const target = ids[1]!;
    const pane = page.getByRole("complementary", { name: `Event ${target}` });
    await pane.waitFor();
    await expect
      .poll(() => pane.getByRole("tree", { name: "Event data" }).innerText())
      .toContain("hello from e2e");
    await screenshot(page, "views-04-event-detail");
    await pane.getByRole("button", { name: "Delete event" }).click();
    await page.getByRole("dialog").getByRole("button", { name: "Delete event" }).click();
    await pane.waitFor({ state: "detached" });
    const after = await eventRowIds(page);
    expect(after).not.toContain(target);
    expect(after).toContain(ids[0]);
    expect(after).toContain(ids[2]);
  });

  test("deletes all events after confirmation", async () => {
    await page.getByRole("button", { name: "Delete all" }).click();
    await page.getByRole("dialog").getByRole("button", { name: "Delete all events" }).click();
    await page.getByRole("dialog").waitFor({ state: "detached" });
    expect(await eventRowIds(page)).toEqual([]);
    await page.getByText("No events yet").waitFor();
  });

  test("turns the source off at once; it is still off after a reload", async () => {
    const sw = page.locator(".detail-header").getByRole("switch", { name: "Active", exact: true });
    expect(await sw.getAttribute("aria-checked")).toBe("true");
    await sw.click();
    // Optimistic, not synchronous: the switch flips once the view's pending reads are cancelled.
    await expect.poll(() => sw.getAttribute("aria-checked"), { timeout: 5_000 }).toBe("false");
    await page.locator(".detail-header").getByText("Inactive", { exact: true }).waitFor();
    await page.waitForTimeout(500);
    await page.reload();
    const again = page.locator(".detail-header").getByRole("switch", { name: "Active", exact: true });
    await again.waitFor();
    expect(await again.getAttribute("aria-checked")).toBe("false");
    const inList = page
      .getByRole("list", { name: "Source list" })
      .getByRole("switch", { name: "Active: e2e greeter" });
    expect(await inList.getAttribute("aria-checked")).toBe("false");
    await screenshot(page, "views-05-source-inactive-after-reload");
  });

  test("creates a workflow from step code and shows it with its endpoint and channels", async () => {
    await page.getByRole("link", { name: "Workflows", exact: true }).click();
    await page.getByRole("button", { name: "+ New workflow" }).click();
    await page.getByRole("dialog").getByLabel("Name", { exact: true }).first().fill("e2e workflow");
    await page.getByRole("button", { name: "Create workflow" }).click();
    await page.getByRole("heading", { name: "e2e workflow", level: 2 }).waitFor({ timeout: 20_000 });
    expect(await page.getByRole("tab", { name: "$errors" }).count()).toBe(1);
    await page.getByRole("grid").waitFor();
    expect(await page.locator(".endpoint-url").innerText()).toMatch(/^http:\/\/127\.0\.0\.1:\d+\//);
    await screenshot(page, "views-06-workflow");
  });
});

test.describe("dashboard views (web mode, launched with a refused key)", () => {
  let host: WebHost;

  test.beforeAll(async ({ apiServer }) => {
    host = await startWebHost({ remote: { baseUrl: apiServer.baseUrl, apiKey: "not-a-real-key-1234" } });
  });

  test.afterAll(async () => {
    await host?.stop();
  });

  test("says the key was refused, in words, where the sources would be", async ({ page }) => {
    await page.goto(host.url);
    const alert = page.getByRole("alert").filter({ hasText: "Could not load sources" });
    await alert.waitFor({ timeout: 30_000 });
    const text = await alert.innerText();
    expect(text).toMatch(/key/i);
    expect(text).toContain("Account → Connections");
    expect(text).toContain("code: unauthorized");
    // The host learned the key is refused: the sidebar's connection turns to an error state.
    const nav = page.getByRole("navigation", { name: "Main" });
    await nav.getByText("Key refused.").waitFor({ timeout: 10_000 });
    expect(await nav.locator(".status-dot:visible").getAttribute("data-status")).toBe("refused");
    expect(await page.content()).not.toContain("not-a-real-key-1234");
    await screenshot(page, "views-07-refused-key");
  });
});
