/**
 * The dashboard at 720, 1024 and 1440 px (issue 49): for a source with its events, the
 * workflows list and a workflow's detail, subscriptions and components, each width shows no
 * horizontal scroll, its key controls visible and clickable (range buttons, tabs, Delete,
 * Settings, the list behind its drawer button below 1100 px), axe 0 violations in light and
 * dark, and the pixels of committed reference screenshots (layout-<view>-<width>.png in
 * layout.spec.ts-snapshots/; `npx playwright test e2e/web/layout.spec.ts --update-snapshots`
 * after a deliberate change, then look at every PNG before committing it). What depends on the
 * clock or the run (ids, times, ports, the chart) is hidden by layout.volatile.css.
 *
 * One server, one web host and one page for the file; each width resizes the page.
 */
import type { BrowserContext, Locator, Page } from "@playwright/test";
import { fileURLToPath } from "node:url";
import { startServer, type TestServer, type TestUser } from "../../test/support/server.js";
import { expectAccessibleInBothSchemes } from "../support/axe.js";
import { echoListener, orderEmitter } from "../support/components.js";
import { expect, requireChromium, test } from "../support/fixtures.js";
import { closeJourney, openJourney } from "../support/journey.js";
import type { WebHost } from "../support/web-host.js";

requireChromium();

const WIDTHS = [720, 1024, 1440] as const;
const HEIGHT = 800;
/** Below this width the sidebar shows icons and the lists are drawers (shell.css, master-detail.css). */
const NARROW = 1100;

/**
 * axe in light and dark at 720 and 1440 px: 1024 px has 720's structure (icons, drawers) and
 * colours do not change with the width, so auditing it again would only cost time.
 */
async function audit(page: Page, width: number, view: string): Promise<void> {
  if (width !== 1024) await expectAccessibleInBothSchemes(page, `${view} at ${width} px`);
}

/** Hides what changes from run to run (ids, times, ports, the chart) in the screenshots. */
const VOLATILE_CSS = fileURLToPath(new URL("./layout.volatile.css", import.meta.url));

test.describe("layout: every main view at 720, 1024 and 1440 px", () => {
  test.describe.configure({ mode: "serial" });
  let server: TestServer;
  let user: TestUser;
  let host: WebHost;
  let context: BrowserContext;
  let page: Page;
  let errors: string[];
  let emitterId: string;
  let componentId: string;

  test.beforeAll(async ({ browser }) => {
    test.setTimeout(120_000);
    server = await startServer();
    user = await server.newUser();
    const emitter = await user.client.createSource({
      component_code: orderEmitter("layout-orders", "Orders"),
      name: "orders webhook from the shop",
    });
    const listener = await user.client.createSource({
      component_code: echoListener("layout-listener"),
      name: "order listener",
    });
    emitterId = emitter.id;
    componentId = emitter.component_id;
    await user.client.createSubscription({ emitter_id: emitterId, listener_id: listener.id });
    await user.client.createWorkflow({
      name: "order digest",
      steps: [{ code: "export default { async run({ steps }) { return { ok: true }; } }" }],
    });
    for (let n = 1; n <= 8; n++) {
      const res = await fetch(`${server.origin}/e/${emitterId}`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ n, customer: `customer ${n}`, total: n * 10 }),
      });
      expect(res.ok).toBe(true);
    }
    await expect
      .poll(async () => (await user.client.listSourceEvents(emitterId, { limit: 1 })).page_info.total_count, {
        timeout: 30_000,
      })
      .toBe(8);
    ({ host, context, page, errors } = await openJourney(browser, {
      remote: { baseUrl: server.baseUrl, apiKey: user.key },
      viewport: { width: 1440, height: HEIGHT },
    }));
  });

  test.afterAll(async () => {
    await closeJourney({ context, host });
    await server?.stop();
  });

  async function go(hash: string): Promise<void> {
    await page.evaluate((h) => (location.hash = h), hash);
  }

  /** No horizontal scroll, and nothing of the page's column wider than the window. */
  async function expectNoHorizontalScroll(view: string): Promise<void> {
    const overflow = await page.evaluate(() => {
      const doc = document.scrollingElement!;
      const wide = [...document.querySelectorAll<HTMLElement>("main *")]
        .filter(
          (el) => el.getClientRects().length > 0 && el.getBoundingClientRect().right > window.innerWidth + 1,
        )
        .filter((el) => !el.closest(".react-flow, .volume-plot, .sr-only"))
        .map((el) => `${el.tagName.toLowerCase()}.${el.className}`);
      return { scrollWidth: doc.scrollWidth, innerWidth: window.innerWidth, wide: wide.slice(0, 5) };
    });
    expect(overflow.scrollWidth, `${view}: document width`).toBeLessThanOrEqual(overflow.innerWidth);
    expect(overflow.wide, `${view}: elements past the window's right edge`).toEqual([]);
  }

  /** Visible, inside the window, and the element that a click at its centre reaches. */
  async function expectClickable(control: Locator): Promise<void> {
    await expect(control).toBeVisible();
    await control.click({ trial: true, timeout: 5_000 });
    const box = (await control.boundingBox())!;
    expect(box.x + box.width).toBeLessThanOrEqual(page.viewportSize()!.width);
  }

  async function expectPixels(name: string): Promise<void> {
    // Nothing keeps the keyboard focus ring or a hover in the picture.
    await page.mouse.move(0, HEIGHT - 1);
    await page.evaluate(() => (document.activeElement as HTMLElement | null)?.blur());
    await expect(page).toHaveScreenshot(`${name}.png`, {
      stylePath: VOLATILE_CSS,
      animations: "disabled",
      caret: "hide",
      maxDiffPixelRatio: 0.01,
    });
  }

  /**
   * Below 1100 px the list is behind its drawer button: open it (and see the list). With nothing
   * selected the drawer is open already.
   */
  async function openList(width: number, name: string, list: string): Promise<Locator> {
    const toggle = page.getByRole("button", { name, exact: true });
    const items = page.getByRole("list", { name: list });
    if (width < NARROW && (await toggle.getAttribute("aria-expanded")) === "false") {
      await expectClickable(toggle);
      await toggle.click();
      await expect(toggle).toHaveAttribute("aria-expanded", "true");
    } else if (width < NARROW) {
      await expect(toggle).toHaveAttribute("aria-expanded", "true");
    } else {
      await expect(toggle).toBeHidden();
    }
    await expect(items).toBeVisible();
    return items;
  }

  for (const width of WIDTHS) {
    test(`${width} px: a source's events, the drawer, the one-line selection toolbar`, async () => {
      await page.setViewportSize({ width, height: HEIGHT });
      await go(`#/sources/${emitterId}`);
      const grid = page.getByRole("grid", { name: `Events of ${emitterId}` });
      const rows = grid.locator("[role=row][data-event-id]");
      await expect(rows).toHaveCount(8, { timeout: 30_000 });
      await expect(page.getByRole("img", { name: /^Event volume/ })).toHaveAttribute(
        "aria-label",
        /8 events/,
      );
      await expect(page.getByRole("status").filter({ hasText: "Live" })).toBeAttached();

      // The sidebar: full names from 1100 px, icons (named, with tooltips) below.
      const nav = page.getByRole("navigation", { name: "Main" });
      const workflowsLink = nav.getByRole("link", { name: "Workflows" });
      await expectClickable(workflowsLink);
      await expect(workflowsLink).toHaveAttribute("title", "Workflows");
      expect((await nav.boundingBox())!.width).toBeLessThan(width < NARROW ? 80 : 260);

      await expectNoHorizontalScroll("a source's events");
      for (const range of ["1 h", "24 h", "7 d"])
        await expectClickable(page.getByRole("button", { name: range, exact: true }));
      await expectClickable(page.getByRole("tab", { name: "Configuration" }));
      await expectClickable(page.getByRole("button", { name: "Delete source" }));
      await expectClickable(page.getByRole("button", { name: "Delete all" }));
      // The columns keep their order and never overlap.
      const heads = await grid
        .getByRole("columnheader")
        .evaluateAll((els) =>
          els
            .filter((e) => e.getClientRects().length > 0)
            .map(
              (e) =>
                [e.textContent, e.getBoundingClientRect().left, e.getBoundingClientRect().right] as const,
            ),
        );
      expect(heads.map((h) => h[0]).slice(0, 2)).toEqual(["Time", "Summary"]);
      for (let i = 1; i < heads.length; i++)
        expect(heads[i]![1]).toBeGreaterThanOrEqual(heads[i - 1]![2] - 1);
      await expectPixels(`layout-source-${width}`);
      await audit(page, width, "a source's events");

      const items = await openList(width, "Sources", "Source list");
      await expect(items.getByRole("link", { name: /^order listener/ })).toBeVisible();
      if (width < NARROW) {
        await expectPixels(`layout-source-list-${width}`);
        await page.getByRole("searchbox", { name: "Search sources" }).focus();
        await page.keyboard.press("Escape");
        await expect(items).toBeHidden();
        await expect(page.getByRole("button", { name: "Sources", exact: true })).toBeFocused();
      }

      // Selecting a range: the toolbar stays one line and the table keeps its height.
      const toolbar = page.getByRole("toolbar", { name: "Event controls" });
      const before = { toolbar: (await toolbar.boundingBox())!, grid: (await grid.boundingBox())! };
      await rows.nth(0).click();
      await page.getByRole("button", { name: "Close event details" }).click();
      await rows.nth(3).click({ modifiers: ["Shift"] });
      const selected = page.getByRole("group", { name: "Selected events" });
      await expect(selected).toContainText("4 selected");
      await expectClickable(selected.getByRole("button", { name: "Replay 4 events" }));
      await expectClickable(selected.getByRole("button", { name: "Delete 4 events" }));
      const after = { toolbar: (await toolbar.boundingBox())!, grid: (await grid.boundingBox())! };
      expect(after.toolbar.height).toBeLessThanOrEqual(before.toolbar.height + 1);
      expect(after.grid.height).toBeGreaterThanOrEqual(before.grid.height - 1);
      await expectNoHorizontalScroll("the selection toolbar");
      await selected.getByRole("button", { name: "Clear the selection" }).click();
      await expect(selected).toBeHidden();
    });

    test(`${width} px: workflows, a workflow's tabs and settings`, async () => {
      await page.setViewportSize({ width, height: HEIGHT });
      await go("#/workflows");
      const items = await openList(width, "Workflows", "Workflow list");
      await expectClickable(page.getByRole("button", { name: "+ New workflow" }));
      await expectNoHorizontalScroll("the workflows list");
      await items.getByRole("link", { name: /^order digest/ }).click();
      await expect(page.getByRole("heading", { name: "order digest" })).toBeVisible();
      // Picking an item closes the drawer; a wide window keeps the list beside the detail.
      if (width < NARROW) await expect(items).toBeHidden();
      else await expect(items).toBeVisible();
      for (const tab of ["Events", "Runs", "Steps (1)", "Settings"])
        await expectClickable(page.getByRole("tab", { name: tab }));
      await expectClickable(page.getByRole("button", { name: "Delete workflow" }));
      await expectNoHorizontalScroll("a workflow");
      await expectPixels(`layout-workflow-${width}`);
      await audit(page, width, "a workflow");
      await page.getByRole("tab", { name: "Settings" }).click();
      await expectClickable(page.getByRole("combobox", { name: "Answer HTTP callers" }));
      await expectNoHorizontalScroll("a workflow's settings");
      await page.getByRole("tab", { name: "Runs" }).click();
      await expectClickable(page.getByRole("combobox", { name: "Status" }));
      await expectNoHorizontalScroll("a workflow's runs");
      await page.getByRole("tab", { name: "Events" }).click();
    });

    test(`${width} px: subscriptions, each with its Delete button`, async () => {
      await page.setViewportSize({ width, height: HEIGHT });
      await go("#/subscriptions");
      const list = page.getByRole("region", { name: "Subscription list" });
      await expect(list.getByText("order listener")).toBeVisible();
      await list.scrollIntoViewIfNeeded();
      await expectClickable(list.getByRole("button", { name: /^Delete subscription / }));
      await expectClickable(page.getByRole("button", { name: "Subscribe", exact: true }));
      await expectNoHorizontalScroll("subscriptions");
      await page
        .locator(".page")
        .first()
        .evaluate((el) => el.scrollTo(0, 0));
      await expectPixels(`layout-subscriptions-${width}`);
      await audit(page, width, "subscriptions");
    });

    test(`${width} px: components, the list and a component`, async () => {
      await page.setViewportSize({ width, height: HEIGHT });
      await go("#/components");
      const items = await openList(width, "Components", "Saved components");
      await expectClickable(page.getByRole("button", { name: "New component" }));
      await items.getByRole("link", { name: /^Orders/ }).click();
      await expect(page.getByRole("heading", { name: "Orders" })).toBeVisible();
      expect(page.url()).toContain(componentId);
      await expectNoHorizontalScroll("a component");
      await expectPixels(`layout-component-${width}`);
      await audit(page, width, "a component");
    });
  }

  test("the theme switch: Dark and Light override the system's, kept by the host for the next page", async () => {
    await page.setViewportSize({ width: 720, height: HEIGHT });
    await go(`#/sources/${emitterId}`);
    await page.emulateMedia({ colorScheme: "light" });
    const theme = () => page.evaluate(() => document.documentElement.dataset.theme);
    expect(await theme()).toBe("light");
    await page.getByRole("radio", { name: "Dark" }).check();
    expect(await theme()).toBe("dark");
    // A dialog's backdrop in dark: clearly darker than the page behind it.
    await page.getByRole("button", { name: "Delete all" }).click();
    const backdrop = await page
      .locator(".modal-backdrop")
      .evaluate((el) => getComputedStyle(el).backgroundColor);
    const alpha = Number(/rgba\([^)]*,\s*([\d.]+)\)/.exec(backdrop)?.[1] ?? 1);
    expect(alpha).toBeGreaterThanOrEqual(0.6);
    await expectPixels("layout-dark-dialog-720");
    await page.getByRole("dialog").getByRole("button", { name: "Cancel" }).click();

    // A new page of the dashboard (a relaunch) reads the choice from the host.
    const next = await context.newPage();
    await next.goto(host.url);
    await expect(next.getByRole("radio", { name: "Dark" })).toBeChecked();
    expect(await next.evaluate(() => document.documentElement.dataset.theme)).toBe("dark");
    await next.close();
    await page.getByRole("radio", { name: "System" }).check();
    await page.emulateMedia({ colorScheme: "dark" });
    await expect.poll(theme).toBe("dark");
    await page.emulateMedia({ colorScheme: "light" });
    await expect.poll(theme).toBe("light");
    await page.getByRole("radio", { name: "Light" }).check();
    await page.emulateMedia({ colorScheme: "dark" });
    expect(await theme()).toBe("light");
    await page.emulateMedia({ colorScheme: "light" });
    await page.getByRole("radio", { name: "System" }).check();
    expect(errors).toEqual([]);
  });
});
