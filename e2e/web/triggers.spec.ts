/**
 * A workflow's triggers in Chromium against a real server (web mode): an interval schedule of one
 * second is added in Settings' Triggers section and saved as a new version; its next ticks show;
 * the workflow's runs then come in with the trigger "Schedule 1". A token is generated for the
 * endpoint and shown once; the endpoint then refuses a request without it. Run now with a JSON
 * event opens a MANUAL run in the Runs tab. axe finds nothing on the Triggers section or the Run
 * now dialog, in light and dark. Screenshots: e2e/screenshots/triggers-*.png.
 */
import { expectAccessibleInBothSchemes } from "../support/axe.js";
import { expect, requireChromium, screenshot, test } from "../support/fixtures.js";

requireChromium();
test.use({ viewport: { width: 1440, height: 1000 } });

const step = (body: string) => `export default defineComponent({ async run({ steps, $ }) { ${body} } });`;

test("a schedule set in Settings starts runs; a token guards the endpoint; Run now makes a MANUAL run", async ({
  dashboard,
}) => {
  test.setTimeout(180_000);
  const { page, api, errors } = dashboard;
  const workflow = await api.createWorkflow({
    name: "Ticking",
    steps: [{ name: "echo", code: step("return steps.trigger.event;") }],
  });
  await page.reload();
  await page
    .getByRole("navigation", { name: "Main" })
    .getByRole("link", { name: "Workflows", exact: true })
    .click();
  await page.getByRole("link", { name: /Ticking/ }).click();
  await page.getByRole("heading", { name: "Ticking", level: 2 }).waitFor();
  const triggers = page.getByRole("region", { name: "Triggers" });

  await test.step("add a 1 s interval schedule and save it: a new version, its next ticks listed", async () => {
    await page.getByRole("tab", { name: "Settings" }).click();
    await expect(triggers.getByText(/No schedules/)).toBeVisible();
    await triggers.getByRole("button", { name: "Add interval" }).click();
    await triggers.getByRole("textbox", { name: /Every \(seconds, schedule 1\)/ }).fill("1");
    await triggers.getByRole("button", { name: "Save schedules" }).click();
    await expect
      .poll(async () => (await api.getWorkflow(workflow.id)).schedules)
      .toEqual([{ interval_seconds: 1 }]);
    expect((await api.getWorkflow(workflow.id)).version).toBe(2);
    await expect(triggers.getByRole("list", { name: "Next ticks" }).getByRole("listitem")).toHaveCount(5);
    await screenshot(page, "triggers-01-schedule");
    await expectAccessibleInBothSchemes(page, "a workflow's Triggers section", { include: ".triggers" });
  });

  await test.step("the schedule's runs come in, trigger SCHEDULE", async () => {
    await expect
      .poll(
        async () =>
          (await api.listWorkflowRuns(workflow.id)).data.filter((r) => r.trigger.type === "SCHEDULE").length,
        {
          timeout: 30_000,
        },
      )
      .toBeGreaterThanOrEqual(2);
    await page.getByRole("tab", { name: "Runs" }).click();
    const grid = page.getByRole("grid", { name: `Runs of ${workflow.id}` });
    await expect(grid.getByText("Schedule 1").first()).toBeVisible({ timeout: 20_000 });
    await screenshot(page, "triggers-02-scheduled-runs");
  });

  await test.step("remove the schedule: a new version without it, no more ticks", async () => {
    await page.getByRole("tab", { name: "Settings" }).click();
    await triggers.getByRole("button", { name: "Remove schedule 1" }).click();
    await triggers.getByRole("button", { name: "Save schedules" }).click();
    await expect(triggers.getByText(/No schedules/)).toBeVisible();
    await expect.poll(async () => (await api.getWorkflow(workflow.id)).version).toBe(3);
    expect((await api.getWorkflow(workflow.id)).schedules).toEqual([]);
  });

  await test.step("generate a token: shown once; the endpoint refuses a request without it", async () => {
    await triggers.getByRole("button", { name: "Generate token" }).click();
    const shown = page.getByRole("dialog", { name: "The endpoint's new token" });
    const token = (await shown.locator("code.token-once").textContent()) ?? "";
    expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    await expectAccessibleInBothSchemes(page, "the new token dialog", { include: ".modal" });
    await shown.getByRole("button", { name: "Done" }).click();
    await expect(triggers.getByText(/Token set/)).toBeVisible();
    await expect(triggers.getByRole("button", { name: "Rotate token" })).toBeVisible();
    expect(await page.content()).not.toContain(token);
    expect((await api.getWorkflow(workflow.id)).http_auth).toEqual({ type: "bearer", token_set: true });
    const post = (headers: Record<string, string>) =>
      fetch(workflow.endpoint_url, {
        method: "POST",
        headers: { "content-type": "application/json", ...headers },
        body: "{}",
      });
    expect((await post({})).status).toBe(401);
    expect((await post({ authorization: `Bearer ${token}` })).status).toBe(200);
  });

  await test.step("Run now with an event: a MANUAL run opens in the Runs tab", async () => {
    await page.getByRole("button", { name: "Run now" }).click();
    const dialog = page.getByRole("dialog", { name: "Run Ticking now" });
    await dialog.getByLabel("Event (JSON, optional)").fill("{not json");
    await dialog.getByRole("button", { name: "Run now" }).click();
    await expect(dialog.getByRole("alert")).toContainText("not JSON");
    await dialog.getByLabel("Event (JSON, optional)").fill('{"order": 42}');
    await screenshot(page, "triggers-03-run-now");
    await expectAccessibleInBothSchemes(page, "the Run now dialog", { include: ".modal" });
    await dialog.getByRole("button", { name: "Run now" }).click();
    await expect(dialog).toBeHidden({ timeout: 15_000 });
    await expect(page.getByRole("tab", { name: "Runs" })).toHaveAttribute("aria-selected", "true");
    await expect
      .poll(
        async () =>
          (await api.listWorkflowRuns(workflow.id)).data.find((r) => r.trigger.type === "MANUAL")?.event,
      )
      .toEqual({ order: 42 });
    const grid = page.getByRole("grid", { name: `Runs of ${workflow.id}` });
    await expect(grid.getByText("Run now").first()).toBeVisible({ timeout: 20_000 });
    await screenshot(page, "triggers-04-manual-run");
  });

  expect(errors).toEqual([]);
});
