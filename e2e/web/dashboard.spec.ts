/**
 * The dashboard in web mode, end to end: the real web host (`electron/web/main.ts`) on a fresh
 * app data dir starts the embedded server for the Local profile, and Chromium drives the
 * renderer. One journey, in order (serial: each step starts where the last one left the page), as
 * a newcomer would take it; each step leaves a screenshot in e2e/screenshots/.
 */
import type { BrowserContext, Page } from "@playwright/test";
import { createClient, type Client } from "../../shared/client/index.js";
import type { Source } from "../../shared/resources/index.js";
import { expect, requireChromium, screenshot, test } from "../support/fixtures.js";
import { closeJourney, openJourney } from "../support/journey.js";
import type { WebHost } from "../support/web-host.js";

requireChromium();
test.describe.configure({ mode: "serial" });

test.describe("dashboard (web mode, local profile)", () => {
  let host: WebHost;
  let context: BrowserContext;
  let page: Page;
  let errors: string[];
  let api: Client;
  let httpSource: Source;

  test.beforeAll(async ({ browser }) => {
    test.setTimeout(180_000);
    ({ host, context, page, errors } = await openJourney(browser, { viewport: { width: 1360, height: 860 }, open: false }));
  });

  test.afterAll(async () => {
    await closeJourney({ context, host });
  });

  test("first launch shows the Local connection with example sources and live events", async () => {
    await page.goto(host.url);
    // The token leaves the address bar once read.
    await page.waitForFunction(() => !location.search.includes("token="));
    await expect(page.getByRole("combobox", { name: "Connection" })).toHaveValue("local", {
      timeout: 60_000,
    });
    const list = page.getByRole("list", { name: "Source list" });
    await list.getByRole("link", { name: /Example: every 5 seconds/ }).waitFor({ timeout: 60_000 });
    await list.getByRole("link", { name: /Example: HTTP requests/ }).waitFor();

    await list.getByRole("link", { name: /Example: every 5 seconds/ }).click();
    const grid = page.getByRole("grid", { name: /^Events of dc_/ });
    // A 5-second schedule: its first tick arrives within a few seconds, over the live stream.
    await grid.getByRole("row").nth(1).waitFor({ timeout: 30_000 });
    await expect.poll(() => grid.getByRole("gridcell").first().innerText()).toMatch(/now|sec/);
    expect(
      await page.getByRole("toolbar", { name: "Event controls" }).getByRole("status").innerText(),
    ).toMatch(/Live/);
    await screenshot(page, "01-first-launch-live-events");

    const key = host.localKey();
    expect(key, "the local key is in the host's vault").toBeTruthy();
    const base = await page
      .getByText(/^http:\/\/127\.0\.0\.1:\d+\/v1$/)
      .first()
      .innerText();
    api = createClient({ baseUrl: base, apiKey: key! });
    expect(errors).toEqual([]);
  });

  test("creates a source from a registry component", async () => {
    await page.getByRole("button", { name: "+ New source" }).click();
    const dialog = page.getByRole("dialog");
    // It opens on the registry: typing the app's word suggests its component.
    await dialog.getByRole("searchbox", { name: "Search the registry" }).fill("http");
    const suggestion = dialog.getByRole("status").filter({ hasText: "Did you mean http-new-requests?" });
    await expect(suggestion).toBeVisible();
    await screenshot(page, "02-picker-suggests");
    await suggestion.getByRole("button", { name: "http-new-requests" }).click();
    await dialog.getByRole("textbox", { name: "Name" }).fill("E2E webhook");
    await screenshot(page, "02-create-source-form");
    await dialog.getByRole("button", { name: "Create source" }).click();
    await dialog.waitFor({ state: "detached" });
    await page.getByRole("heading", { name: "E2E webhook", level: 2 }).waitFor();
    await page
      .getByRole("list", { name: "Source list" })
      .getByRole("link", { name: /E2E webhook/ })
      .waitFor();

    const sources = await api.listMySources({ limit: 100 });
    httpSource = sources.data.find((s) => s.name === "E2E webhook")!;
    expect(httpSource).toBeDefined();
    expect(httpSource.active).toBe(true);
  });

  test("shows events as they arrive, newest first", async () => {
    const endpoint = (httpSource.configured_props.http as { endpoint_url: string }).endpoint_url;
    const grid = page.getByRole("grid", { name: `Events of ${httpSource.id}` });
    for (let i = 1; i <= 6; i++) {
      const res = await fetch(`${endpoint}/e2e/${i}`, {
        method: "POST",
        body: JSON.stringify({ n: i }),
        headers: { "content-type": "application/json" },
      });
      expect(res.status).toBe(200);
    }
    await expect.poll(() => grid.getByRole("row").count(), { timeout: 20_000 }).toBe(7);
    const summaries = await grid.locator('[role="row"] >> [role="gridcell"]:nth-child(2)').allInnerTexts();
    expect(summaries).toEqual([6, 5, 4, 3, 2, 1].map((i) => `POST /e2e/${i} {"n":${i}}`));
    await screenshot(page, "03-events-arrive");
  });

  test("toggles the source's active switch", async () => {
    const toggle = page
      .getByRole("region", { name: "Source", exact: true })
      .getByRole("switch", { name: "Active", exact: true });
    await expect.poll(() => toggle.isChecked()).toBe(true);
    await toggle.click();
    await expect.poll(() => toggle.isChecked()).toBe(false);
    await expect
      .poll(async () => (await api.getSource(httpSource.id)).active, { timeout: 10_000 })
      .toBe(false);
    await screenshot(page, "04-source-inactive");
    await toggle.click();
    await expect.poll(() => toggle.isChecked()).toBe(true);
    await expect
      .poll(async () => (await api.getSource(httpSource.id)).active, { timeout: 10_000 })
      .toBe(true);
  });

  test("selects a range with shift-click and deletes it", async () => {
    const grid = page.getByRole("grid", { name: `Events of ${httpSource.id}` });
    const rows = grid.getByRole("row");
    // Rows 1..6 are events 6..1 (newest first). Select events 5 to 3.
    await rows.nth(2).click();
    await page.keyboard.press("Escape");
    await rows.nth(4).click({ modifiers: ["Shift"] });
    await page.getByRole("button", { name: "Delete 3 events" }).click();
    await screenshot(page, "05-range-delete-confirm");
    await page.getByRole("dialog").getByRole("button", { name: "Delete 3 events" }).click();
    await expect
      .poll(() => grid.locator('[role="row"] >> [role="gridcell"]:nth-child(2)').allInnerTexts(), {
        timeout: 10_000,
      })
      .toEqual(['POST /e2e/6 {"n":6}', 'POST /e2e/2 {"n":2}', 'POST /e2e/1 {"n":1}']);
    // The server agrees (deletes are visible to reads within 1 s).
    await expect
      .poll(
        async () =>
          (await api.listSourceEvents(httpSource.id, { limit: 100 })).data.map(
            (e) => (e.event as { path: string }).path,
          ),
        { timeout: 5_000 },
      )
      .toEqual(["/e2e/6", "/e2e/2", "/e2e/1"]);
    await screenshot(page, "06-range-deleted");
  });

  test("creates and deletes a subscription", async () => {
    const timer = (await api.listMySources({ limit: 100 })).data.find(
      (s) => s.name === "Example: every 5 seconds",
    )!;
    await page.getByRole("link", { name: "Subscriptions" }).click();
    const form = page.getByRole("form", { name: "New subscription" });
    await form.getByRole("combobox", { name: "Emitter" }).fill(timer.id);
    await form.getByRole("combobox", { name: "Listener" }).fill(httpSource.id);
    await form.getByRole("button", { name: "Subscribe" }).click();
    const list = page.getByRole("region", { name: "Subscription list" });
    const del = list.getByRole("button", { name: `Delete subscription ${timer.name} to ${httpSource.name}` });
    await del.waitFor();
    expect((await api.listMySubscriptions()).map((s) => [s.emitter_id, s.listener_id])).toContainEqual([
      timer.id,
      httpSource.id,
    ]);
    await screenshot(page, "07-subscription-created");
    await del.click();
    await page.getByRole("dialog").getByRole("button", { name: "Delete subscription" }).click();
    await del.waitFor({ state: "detached" });
    expect((await api.listMySubscriptions()).filter((s) => s.emitter_id === timer.id)).toEqual([]);
  });

  test("renders the components, workflows and account views", async () => {
    for (const [view, heading] of [
      ["Components", "Components"],
      ["Workflows", "Workflows"],
      ["Account", "Account"],
    ] as const) {
      await page.getByRole("link", { name: view, exact: true }).click();
      await page.getByRole("heading", { name: heading, level: 1 }).waitFor();
      // Let the view's first queries settle (no spinner left) before the picture.
      await page
        .locator('[aria-busy="true"], .spinner')
        .first()
        .waitFor({ state: "detached", timeout: 10_000 })
        .catch(() => undefined);
      await screenshot(page, `08-view-${view.toLowerCase()}`);
    }
    await page.getByRole("heading", { name: "admin", level: 2 }).waitFor();
  });

  test("a connection with a wrong key shows a clear error", async () => {
    await page.getByRole("link", { name: "Account", exact: true }).click();
    const form = page.getByRole("form", { name: "Add a remote connection" });
    await form.getByRole("textbox", { name: "Name" }).fill("Wrong key");
    await form.getByRole("textbox", { name: "Base URL" }).fill(api.baseUrl);
    await form.getByRole("textbox", { name: "API key" }).fill("definitely-not-a-valid-key");
    await form.getByRole("button", { name: "Add and connect" }).click();
    await expect
      .poll(() => page.getByRole("alert").allInnerTexts(), { timeout: 15_000 })
      .toContainEqual(expect.stringMatching(/API key was refused/));
    await screenshot(page, "09-wrong-key-error");
    // The key never reaches the page: only its last four characters.
    expect(await page.content()).not.toContain("definitely-not-a-valid-key");

    // Back to Local: one click, and the app works again.
    await page.getByRole("combobox", { name: "Connection" }).selectOption("local");
    await page.getByRole("link", { name: "Sources", exact: true }).click();
    await page
      .getByRole("list", { name: "Source list" })
      .getByRole("link", { name: /E2E webhook/ })
      .waitFor({ timeout: 15_000 });
  });
});
