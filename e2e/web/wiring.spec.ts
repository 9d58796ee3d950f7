/**
 * Wiring without typing an id (issue 21), in Chromium against a real server: a subscription
 * picked by typing part of a name and Enter, a test event sent from the app that arrives in the
 * live table (Send, the answer and the table all in view at once; a workflow's answer links its
 * run), and the flow view drawing the edge with its count. Screenshots:
 * e2e/screenshots/wiring-*.png (wiring-03 is the picture docs/images/flow-view.png was taken from;
 * the test never writes into the tracked tree).
 */
import { expect, requireChromium, screenshot, test } from "../support/fixtures.js";

requireChromium();
test.use({ viewport: { width: 1360, height: 1000 } });

const STEP_CODE = `export default defineComponent({
  async run({ steps, $ }) {
    $.send.emit({ seen: steps.trigger.event });
  },
});
`;

test("subscribe by name, send a test event, and see the wiring with its count", async ({ dashboard }) => {
  test.setTimeout(180_000);
  const { page, api } = dashboard;
  const source = await api.createSource({ key: "http-new-requests", name: "Orders webhook" });
  const workflow = await api.createWorkflow({ name: "Notify the team", steps: [{ code: STEP_CODE }] });
  await page.reload();

  await test.step("subscribe the workflow to the source by typing part of each name and Enter", async () => {
    await page
      .getByRole("navigation", { name: "Main" })
      .getByRole("link", { name: "Subscriptions", exact: true })
      .click();
    const form = page.getByRole("form", { name: "New subscription" });
    const emitter = form.getByRole("combobox", { name: "Emitter" });
    await emitter.pressSequentially("orders");
    await expect(page.getByRole("listbox", { name: "Emitter choices" }).getByRole("option")).toHaveCount(1);
    await emitter.press("Enter");
    await expect(emitter).toHaveValue("Orders webhook");
    await expect(form.getByText(source.id, { exact: true })).toBeVisible();
    const listener = form.getByRole("combobox", { name: "Listener" });
    await listener.pressSequentially("notify");
    await listener.press("Enter");
    await expect(listener).toHaveValue("Notify the team");
    await screenshot(page, "wiring-01-subscribe-by-name");
    await form.getByRole("button", { name: "Subscribe" }).click();
    const list = page.getByRole("region", { name: "Subscription list" });
    await expect(list.getByRole("row").filter({ hasText: "Orders webhook" })).toContainText(
      "Notify the team",
    );
    expect((await api.listMySubscriptions()).map((s) => [s.emitter_id, s.listener_id, s.event_name])).toEqual(
      [[source.id, workflow.id, ""]],
    );
  });

  await test.step("send a test event from the source's page; it arrives in the live table", async () => {
    await page
      .getByRole("navigation", { name: "Main" })
      .getByRole("link", { name: "Sources", exact: true })
      .click();
    await page
      .getByRole("list", { name: "Source list" })
      .getByRole("link", { name: /Orders webhook/ })
      .click();
    await expect(
      page.getByRole("group", { name: "Wiring" }).getByRole("link", { name: "Notify the team" }),
    ).toBeVisible();
    await page.getByRole("button", { name: "Send test event" }).click();
    const panel = page.getByRole("region", { name: "Send test event" });
    await panel.getByLabel("Path").fill("/orders/42");
    const body = panel.getByLabel("Body");
    await body.fill('{"order": 42, ');
    await expect(panel.getByText(/Body is not valid JSON/)).toBeVisible();
    await expect(panel.getByRole("button", { name: "Send", exact: true })).toBeDisabled();
    await body.fill('{"order": 42, "total": 99.5}');
    await panel.getByRole("button", { name: "Send", exact: true }).click();
    const response = panel.getByRole("region", { name: "Response" });
    await expect(response.getByRole("status")).toHaveText(/^200/);
    const grid = page.getByRole("grid", { name: `Events of ${source.id}` });
    // The row previews the body: requests to one endpoint can be told apart.
    const row = grid.getByRole("row").filter({ hasText: 'POST /orders/42 {"order":42,"total":99.5}' });
    await expect(row).toHaveCount(1, { timeout: 20_000 });
    // Send, its answer and the event that arrived are all on screen together.
    await expect(panel.getByRole("button", { name: "Send", exact: true })).toBeInViewport();
    await expect(response.getByRole("status")).toBeInViewport();
    await expect(row).toBeInViewport();
    await expect(panel.getByRole("list", { name: "Recent requests" }).getByRole("listitem")).toHaveCount(1);
    await screenshot(page, "wiring-02-test-event-arrived");
    const events = await api.listSourceEvents(source.id, { expand: "event" });
    expect(events.data[0]!.event).toMatchObject({
      method: "POST",
      path: "/orders/42",
      body: { order: 42, total: 99.5 },
    });
  });

  await test.step("the flow view draws the edge with the emitter's count; a node opens its page", async () => {
    await page
      .getByRole("navigation", { name: "Main" })
      .getByRole("link", { name: "Flow", exact: true })
      .click();
    const canvas = page.getByRole("application", { name: /^Event flow/ });
    await expect(canvas).toBeVisible();
    const edge = canvas.getByRole("img", { name: /^Orders webhook to Notify the team/ });
    await expect(edge).toHaveAccessibleName(/1 event in the last hour/, { timeout: 20_000 });
    await expect(canvas.getByText("1 event", { exact: false }).first()).toBeVisible();
    await screenshot(page, "wiring-03-flow-view");

    await canvas.getByRole("link", { name: "Notify the team" }).click();
    await expect(page.getByRole("heading", { name: "Notify the team", level: 2 })).toBeVisible();
    await expect(
      page.getByRole("group", { name: "Wiring" }).getByRole("link", { name: "Orders webhook" }),
    ).toBeVisible();
  });

  await test.step("a test event to the workflow answers with a link to its run, which opens it", async () => {
    await page.getByRole("button", { name: "Send test event" }).click();
    const panel = page.getByRole("region", { name: "Send test event" });
    await panel.getByRole("button", { name: "Send", exact: true }).click();
    const response = panel.getByRole("region", { name: "Response" });
    await expect(response.getByRole("status")).toHaveText(/^200/);
    const runLink = response.getByRole("link", { name: "Open the run" });
    await expect(runLink).toBeInViewport();
    const runId = (await runLink.getAttribute("title"))!.replace(/^run /, "");
    await runLink.click();
    await expect(page.getByRole("tab", { name: "Runs" })).toHaveAttribute("aria-selected", "true");
    await expect(page.getByRole("complementary", { name: `Run ${runId}` })).toBeVisible({ timeout: 20_000 });
    await screenshot(page, "wiring-04-test-event-run-link");
  });
  expect(dashboard.errors).toEqual([]);
});
