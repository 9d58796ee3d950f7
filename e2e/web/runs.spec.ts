/**
 * A workflow's runs in Chromium against a real server (web mode): a two-step workflow whose
 * step b throws on some bodies gets a request at its endpoint URL; the run appears in the Runs
 * tab as it happens (the runs stream, through the host), opens on its failed step with the
 * error, its stack and the step's logs; step b is fixed, "Re-run from this step" runs it again
 * with step a reused, and the new run succeeds; compared with that last good run, the failed run
 * shows step b's status and code diff. axe finds nothing in either colour scheme. The
 * workflow's settings change how its callers are answered. Screenshots: e2e/screenshots/runs-*.png
 * (runs-02 is the picture docs/images/run-inspector.png was taken from).
 */
import { expectAccessibleInBothSchemes } from "../support/axe.js";
import { expect, requireChromium, screenshot, test } from "../support/fixtures.js";

requireChromium();
test.use({ viewport: { width: 1440, height: 1000 } });

const step = (body: string) => `export default defineComponent({ async run({ steps, $ }) { ${body} } });`;
/** Step a logs the order and exports its total; step b refuses refunds until it is fixed. */
const steps = (bThrows: boolean) => [
  {
    name: "a",
    code: step(
      `console.log("order", steps.trigger.event.body.order); $.export("total", steps.trigger.event.body.total); return { checked: true };`,
    ),
  },
  {
    name: "b",
    code: step(
      `console.warn("charging", steps.a.total); ${bThrows ? 'if (steps.trigger.event.body.total < 0) throw new RangeError("no refunds here");' : ""} return "charged " + steps.a.total;`,
    ),
  },
];

test("a failed run shows live, opens on its failed step, and succeeds re-run from it once fixed", async ({
  dashboard,
}) => {
  test.setTimeout(180_000);
  const { page, api, errors } = dashboard;
  const workflow = await api.createWorkflow({ name: "Charge orders", steps: steps(true) });
  await page.reload();

  await test.step("open the workflow's Runs tab: empty, and live", async () => {
    await page
      .getByRole("navigation", { name: "Main" })
      .getByRole("link", { name: "Workflows", exact: true })
      .click();
    await page.getByRole("link", { name: /Charge orders/ }).click();
    await page.getByRole("heading", { name: "Charge orders", level: 2 }).waitFor();
    await page.getByRole("tab", { name: "Runs" }).click();
    await expect(page.getByText(/^No runs yet/)).toBeVisible();
    await expect(page.getByRole("status").filter({ hasText: "Live" })).toBeVisible({ timeout: 20_000 });
  });

  const grid = page.getByRole("grid", { name: `Runs of ${workflow.id}` });
  const rows = grid.locator("[role=row][data-run-id]");
  let failedId = "";
  await test.step("a request to the endpoint URL: its run appears, then fails, without a reload", async () => {
    const res = await fetch(workflow.endpoint_url, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ order: "o-17", total: -40 }),
    });
    expect(res.status).toBe(200);
    failedId = res.headers.get("x-headwater-run-id") ?? "";
    expect(failedId).toMatch(/^r_/);
    await expect(rows).toHaveCount(1, { timeout: 20_000 });
    await expect(rows.first()).toHaveAttribute("data-run-id", failedId);
    await expect(rows.first().getByRole("gridcell").first()).toHaveText("Error", { timeout: 20_000 });
    await expect(rows.first().getByRole("gridcell").nth(1)).toHaveText("HTTP request");
    // The list was read once, empty, when the tab opened, and nothing reads it again: the row
    // (and its change to Error) came over the runs stream.
    await screenshot(page, "runs-01-live-list");
  });

  const inspector = page.getByRole("complementary", { name: `Run ${failedId}` });
  await test.step("open it with the keyboard: it opens on step b, with the error, stack and logs", async () => {
    await grid.focus();
    await page.keyboard.press("ArrowDown");
    await page.keyboard.press("Enter");
    await expect(inspector).toBeVisible();
    await expect(inspector.getByRole("tab", { selected: true })).toContainText("b");
    await expect(inspector.getByRole("note")).toContainText("Step b failed");
    const error = inspector.getByRole("region", { name: "Error of step b" });
    await expect(error).toContainText("RangeError: no refunds here");
    await expect(error.getByLabel("Stack of step b")).toContainText("no refunds here");
    await expect(error.getByLabel("Stack of step b")).not.toContainText("/server/");
    await expect(inspector.getByRole("region", { name: "Logs of step b" })).toContainText("warncharging -40");
    await expect(inspector.getByRole("tree", { name: "Trigger event" })).toContainText("o-17");
    await screenshot(page, "runs-02-failed-run");
    await expectAccessibleInBothSchemes(page, "a failed run in the run inspector");

    await inspector.getByRole("tab", { name: /a/ }).click();
    await expect(inspector.getByRole("tree", { name: "Return value of step a" })).toContainText("checked");
    await expect(inspector.getByRole("tree", { name: "Exports of step a" })).toContainText("-40");
    await expect(inspector.getByRole("region", { name: "Logs of step a" })).toContainText("logorder o-17");
  });

  await test.step("fix step b, re-run from it: a is reused, the new run succeeds", async () => {
    await api.updateWorkflow(workflow.id, { steps: steps(false) });
    await inspector.getByRole("tab", { name: /b/ }).click();
    await inspector.getByRole("button", { name: "Re-run from this step" }).click();
    const rerun = page.getByRole("complementary", { name: /^Run r_/ });
    await expect(rerun).not.toHaveAccessibleName(`Run ${failedId}`, { timeout: 30_000 });
    await expect(rerun.getByRole("heading", { name: /^Run/ })).toContainText("Success");
    await expect(rerun).toContainText(`Re-run of ${failedId} from b`);
    const tabs = rerun.getByRole("tab");
    await expect(tabs.nth(0)).toContainText("Reused");
    await expect(tabs.nth(1)).toContainText("Success");
    await expect(rerun.getByRole("tree", { name: "Return value of step b" })).toContainText("charged -40");
    await expect(rows).toHaveCount(2);
    await expect(rows.first().getByRole("gridcell").first()).toHaveText("Success");
    await screenshot(page, "runs-03-rerun");
    await expectAccessibleInBothSchemes(page, "a successful re-run in the run inspector");
  });

  await test.step("compare the failed run with the last good run: step b's status and code", async () => {
    await rows.nth(1).click();
    await inspector.getByRole("button", { name: "Compare with the last good run" }).click();
    const dialog = page.getByRole("dialog", { name: "Compare with the last good run" });
    const table = dialog.getByRole("table");
    await expect(table).toBeVisible({ timeout: 20_000 });
    // The failed run (version 1) beside the re-run (version 2): a was reused there, b failed here.
    await expect(dialog.getByRole("definition").first()).toContainText(`${failedId}, version 1`);
    await expect(dialog.getByRole("definition").nth(1)).toContainText("version 2");
    const a = table.getByRole("row", { name: /^a / });
    await expect(a.getByRole("cell").nth(0)).toContainText("Success");
    await expect(a.getByRole("cell").nth(1)).toContainText("Reused");
    const b = table.getByRole("row", { name: /^b / });
    await expect(b.getByRole("cell").nth(0)).toContainText("Error");
    await expect(b.getByRole("cell").nth(1)).toContainText("Success");
    await expect(b.getByRole("cell").nth(2)).toHaveText("changed");
    const diff = dialog.getByLabel("Changes of step b's code since the last good run");
    await expect(diff.locator(".diff-add")).toContainText("no refunds here");
    await expect(diff.locator(".diff-del")).not.toContainText("no refunds here");
    await screenshot(page, "runs-04-compare");
    await expectAccessibleInBothSchemes(page, "a failed run compared with the last good run");
    await page.keyboard.press("Escape");
    await expect(dialog).toBeHidden();
  });

  await test.step("the status filter keeps the failed run alone", async () => {
    await page.getByRole("combobox", { name: "Status" }).selectOption("error");
    await expect(rows).toHaveCount(1);
    await expect(rows.first()).toHaveAttribute("data-run-id", failedId);
  });

  await test.step("settings: answer HTTP callers with the workflow's $.respond", async () => {
    await page.getByRole("tab", { name: "Settings" }).click();
    await page
      .getByRole("combobox", { name: "Answer HTTP callers" })
      .selectOption({ label: "With the workflow's $.respond" });
    await expect.poll(async () => (await api.getWorkflow(workflow.id)).http_response).toBe("workflow");
    await expectAccessibleInBothSchemes(page, "a workflow's settings");
  });

  expect(errors).toEqual([]);
});
