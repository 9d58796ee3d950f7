/**
 * Account → Connect an agent, in Chromium against web mode and a real server: the panel shows the
 * connection's MCP URL (`<origin>/mcp`) and configurations that carry a placeholder, never the
 * key; copying one puts exactly that text on the clipboard; Test lists the server's tools through
 * the web host (which holds the key); a connection whose key is refused shows why. axe finds
 * nothing on the panel in light and dark, with the tool list and with the error.
 * Screenshots: e2e/screenshots/agent-*.png.
 */
import type { BrowserContext, Page } from "@playwright/test";
import type { TestUser } from "../../test/support/server.js";
import { auditPage } from "../support/axe.js";
import { expect, requireChromium, screenshot, test } from "../support/fixtures.js";
import { closeJourney, openJourney } from "../support/journey.js";
import type { WebHost } from "../support/web-host.js";

requireChromium();

/** axe over the panel in both colour schemes; every finding of both in one failure. */
async function expectPanelAccessible(page: Page, state: string): Promise<void> {
  const lines: string[] = [];
  for (const colorScheme of ["light", "dark"] as const) {
    await page.emulateMedia({ colorScheme });
    await page.waitForTimeout(250);
    const findings = await auditPage(page, { include: ".agent-panel" });
    await test.info().attach(`axe: ${state} (${colorScheme})`, {
      body: JSON.stringify(findings, null, 2),
      contentType: "application/json",
    });
    for (const f of findings) lines.push(`[${colorScheme}] ${f.rule} (${f.impact}) at ${f.target}: ${f.summary}`);
  }
  await page.emulateMedia({ colorScheme: "light" });
  expect(lines, `axe-core (WCAG 2.1 A/AA) on ${state}`).toEqual([]);
}

test.describe("Connect an agent (web mode, a real server)", () => {
  test.describe.configure({ mode: "serial" });
  let host: WebHost;
  let context: BrowserContext;
  let page: Page;
  let errors: string[];
  let user: TestUser;
  let origin: string;

  test.beforeAll(async ({ browser, apiServer }) => {
    test.setTimeout(180_000);
    origin = apiServer.origin;
    user = await apiServer.newUser();
    ({ host, context, page, errors } = await openJourney(browser, {
      remote: { baseUrl: apiServer.baseUrl, apiKey: user.key },
      permissions: ["clipboard-read", "clipboard-write"],
    }));
  });

  test.afterAll(async () => {
    await closeJourney({ context, host });
  });

  const panel = () => page.getByRole("region", { name: "Connect an agent" });
  const configOf = async (heading: string): Promise<unknown> =>
    JSON.parse(await panel().locator(".agent-config", { has: page.getByRole("heading", { name: heading }) }).locator("pre").innerText());

  test("shows the MCP URL and both configurations, with a placeholder where the key goes", async () => {
    await page.getByRole("link", { name: "Account", exact: true }).click();
    await expect(panel()).toBeVisible({ timeout: 30_000 });
    await expect(panel().getByText(`${origin}/mcp`, { exact: true })).toBeVisible();
    expect(await configOf("Over HTTP")).toEqual({
      mcpServers: {
        headwater: { type: "http", url: `${origin}/mcp`, headers: { Authorization: "Bearer <your API key>" } },
      },
    });
    expect(await configOf("Over stdio")).toEqual({
      mcpServers: {
        headwater: {
          command: "npx",
          args: ["headwater", "mcp"],
          env: { HEADWATER_API_URL: `${origin}/v1`, HEADWATER_API_KEY: "<your API key>" },
        },
      },
    });
    await expect(panel().locator(".agent-key-note")).toContainText(`…${user.key.slice(-4)}`);
    // The key itself is nowhere on the page.
    expect(await page.content()).not.toContain(user.key);

    await panel().getByRole("button", { name: "Copy HTTP configuration" }).click();
    await expect(panel().getByRole("button", { name: "Copied" })).toBeVisible();
    const copied = await page.evaluate(() => navigator.clipboard.readText());
    expect(JSON.parse(copied)).toEqual(await configOf("Over HTTP"));
    await screenshot(page, "agent-01-panel");
  });

  test("Test lists the server's tools through the host", async () => {
    await panel().getByRole("button", { name: "Test connection" }).click();
    const tools = panel().getByRole("list", { name: "Tools" });
    await expect(tools).toBeVisible({ timeout: 30_000 });
    await expect(panel().getByRole("status").filter({ hasText: "Connected to" })).toContainText(`${origin}/mcp`);
    for (const name of ["whoami", "list_sources", "create_source", "wait_for_events", "replay_events"]) {
      await expect(tools.getByText(name, { exact: true })).toBeVisible();
    }
    await tools.scrollIntoViewIfNeeded();
    await screenshot(page, "agent-02-tools");
    await expectPanelAccessible(page, "connect an agent, with the tools");
  });

  test("a refused key: Test says so, in words", async () => {
    const form = page.getByRole("form", { name: "Add a remote connection" });
    await form.getByRole("textbox", { name: "Name" }).fill("Wrong key");
    await form.getByRole("textbox", { name: "Base URL" }).fill(`${origin}/v1`);
    await form.getByRole("textbox", { name: "API key" }).fill("test_definitely_not_a_key_0123456789");
    await form.getByRole("button", { name: "Add and connect" }).click();
    // A new connection: the earlier test's answer is gone with the old one.
    await expect(panel().getByRole("list", { name: "Tools" })).toHaveCount(0);
    await expect(panel().locator(".agent-key-note")).toContainText("…6789");
    await panel().getByRole("button", { name: "Test connection" }).click();
    const alert = panel().getByRole("alert");
    await expect(alert).toContainText("The agent could not connect");
    await expect(alert).toContainText(`The MCP endpoint ${origin}/mcp refused this connection's API key`);
    await screenshot(page, "agent-03-refused");
    await expectPanelAccessible(page, "connect an agent, a refused key");
    expect(errors).toEqual([]);
  });
});
