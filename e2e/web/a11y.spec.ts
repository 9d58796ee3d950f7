/**
 * Accessibility: axe-core's WCAG 2.1 A and AA rules over every view of the dashboard, with the
 * states people see (a selected source and event, an open dialog, the test event panel with an
 * invalid body, the flow canvas), in the light and the dark colour scheme. 0 violations.
 */
import { expectAccessible } from "../support/axe.js";
import { expect, requireChromium, test } from "../support/fixtures.js";

requireChromium();
test.use({ viewport: { width: 1360, height: 1000 } });

for (const scheme of ["light", "dark"] as const) {
  test(`every view passes axe (WCAG 2.1 A/AA) in the ${scheme} scheme`, async ({ dashboard }) => {
    test.setTimeout(180_000);
    const { page, api } = dashboard;
    await page.emulateMedia({ colorScheme: scheme });
    const source = await api.createSource({ key: "http-new-requests", name: "Orders webhook" });
    const workflow = await api.createWorkflow({
      name: "Notify the team",
      steps: [{ code: "export default defineComponent({ async run({ steps, $ }) { return 1; } });" }],
    });
    await api.createSubscription({ emitter_id: source.id, listener_id: workflow.id, event_name: "" });
    const endpoint = (source.configured_props.http as { endpoint_url: string }).endpoint_url;
    await fetch(`${endpoint}/a11y`, {
      method: "POST",
      body: "{}",
      headers: { "content-type": "application/json" },
    });
    await page.reload();
    const nav = page.getByRole("navigation", { name: "Main" });

    // Sources: the selected source, its events, an event open in the detail pane.
    await page
      .getByRole("list", { name: "Source list" })
      .getByRole("link", { name: /Orders webhook/ })
      .click();
    const grid = page.getByRole("grid", { name: `Events of ${source.id}` });
    await grid.getByRole("row").nth(1).click();
    await expect(page.getByRole("complementary", { name: /^Event / })).toBeVisible();
    await grid.getByRole("row").nth(1).hover();
    await expectAccessible(page, `sources, selected event (${scheme})`);

    // The test event panel, in its error state.
    await page.getByRole("button", { name: "Send test event" }).click();
    await page.getByRole("region", { name: "Send test event" }).getByLabel("Body").fill("{nope");
    await expectAccessible(page, `send test event, invalid body (${scheme})`);

    // A dialog.
    await page.getByRole("button", { name: "+ New source" }).click();
    await expect(page.getByRole("dialog")).toBeVisible();
    await expectAccessible(page, `new source dialog (${scheme})`);
    await page.keyboard.press("Escape");

    for (const [view, ready] of [
      [
        "Subscriptions",
        () => page.getByRole("region", { name: "Subscription list" }).getByRole("row").nth(1),
      ],
      ["Flow", () => page.getByRole("application", { name: /^Event flow/ })],
      ["Workflows", () => page.getByRole("heading", { name: "Workflows", level: 1 })],
      ["Components", () => page.getByRole("heading", { name: "Components", level: 1 })],
      ["Account", () => page.getByRole("heading", { name: "Account", level: 1 })],
    ] as const) {
      await nav.getByRole("link", { name: view, exact: true }).click();
      await expect(ready()).toBeVisible();
      await expectAccessible(page, `${view.toLowerCase()} (${scheme})`);
    }

    // The combobox open with its choices.
    await nav.getByRole("link", { name: "Subscriptions", exact: true }).click();
    await page.getByRole("combobox", { name: "Emitter" }).pressSequentially("ord");
    await expect(page.getByRole("listbox", { name: "Emitter choices" })).toBeVisible();
    await expectAccessible(page, `emitter combobox open (${scheme})`);

    // A workflow's page.
    await nav.getByRole("link", { name: "Workflows", exact: true }).click();
    await page
      .getByRole("link", { name: /Notify the team/ })
      .first()
      .click();
    await expect(page.getByRole("heading", { name: "Notify the team", level: 2 })).toBeVisible();
    await expectAccessible(page, `workflow (${scheme})`);
  });
}
