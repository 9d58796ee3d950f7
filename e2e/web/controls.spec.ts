/**
 * Execution controls in Chromium against a real server (web mode): a workflow whose step b
 * fails on its first two attempts (counted in globalThis, which the owner's worker keeps between
 * attempts) gets retries in the dashboard's Settings (3 attempts, first retry after 1 s); a
 * request to its endpoint URL makes a run that the Runs tab shows going Retrying (with when it
 * tries again), then Success at attempt 3, and the inspector lists its attempts. A run whose
 * retry waits a minute is cancelled from the inspector. axe finds nothing in either colour
 * scheme. Screenshots: e2e/screenshots/controls-*.png.
 */
import { randomUUID } from "node:crypto";
import { expectAccessibleInBothSchemes } from "../support/axe.js";
import { expect, requireChromium, screenshot, test } from "../support/fixtures.js";

requireChromium();
test.use({ viewport: { width: 1440, height: 1000 } });

const step = (body: string) => `export default defineComponent({ async run({ steps, $ }) { ${body} } });`;
const STEPS = [
  { name: "a", code: step(`return { token: steps.trigger.event.body.token };`) },
  {
    name: "b",
    code: step(
      `const seen = (globalThis.__e2eAttempts ??= {}); const t = steps.trigger.event.body.token; ` +
        `seen[t] = (seen[t] ?? 0) + 1; ` +
        `if (seen[t] <= steps.trigger.event.body.failures) throw new Error("attempt " + seen[t] + " fails on purpose"); ` +
        `return "synced after " + seen[t];`,
    ),
  },
];

test("retries set in Settings: a flaky run goes retrying, then succeeds; a waiting retry is cancelled", async ({
  dashboard,
}) => {
  test.setTimeout(180_000);
  const { page, api, errors } = dashboard;
  const workflow = await api.createWorkflow({ name: "Flaky sync", steps: STEPS });
  await page.reload();
  await page
    .getByRole("navigation", { name: "Main" })
    .getByRole("link", { name: "Workflows", exact: true })
    .click();
  await page.getByRole("link", { name: /Flaky sync/ }).click();
  await page.getByRole("heading", { name: "Flaky sync", level: 2 }).waitFor();

  await test.step("Settings: a value out of range is refused beside its field, before anything is sent", async () => {
    await page.getByRole("tab", { name: "Settings" }).click();
    const concurrency = page.getByRole("spinbutton", { name: "Runs at once" });
    await expect(concurrency).toHaveValue("1");
    await concurrency.fill("0");
    await page.getByRole("button", { name: "Save controls" }).click();
    await expect(page.getByText("Runs at once: Must be from 1 to 100.")).toBeVisible();
    await expect(concurrency).toBeFocused();
    await expect(concurrency).toHaveAttribute("aria-invalid", "true");
    await page.getByRole("button", { name: "Discard changes" }).click();
    await expect(concurrency).toHaveValue("1");
    expect((await api.getWorkflow(workflow.id)).concurrency).toBe(1);
  });

  await test.step("Settings: 3 attempts, the first retry after 1 s, at most 2 s apart", async () => {
    await page.getByRole("spinbutton", { name: "Attempts per run" }).fill("3");
    await page.getByRole("spinbutton", { name: "First retry after (seconds)" }).fill("1");
    await page.getByRole("spinbutton", { name: "Longest delay between attempts (seconds)" }).fill("2");
    await page.getByRole("button", { name: "Save controls" }).click();
    await expect(page.getByText("No unsaved changes.")).toBeVisible();
    expect((await api.getWorkflow(workflow.id)).retry).toEqual({
      max_attempts: 3,
      initial_delay_seconds: 1,
      max_delay_seconds: 2,
    });
    await screenshot(page, "controls-01-settings");
    await expectAccessibleInBothSchemes(page, "a workflow's execution controls");
  });

  const grid = page.getByRole("grid", { name: `Runs of ${workflow.id}` });
  const rows = grid.locator("[role=row][data-run-id]");
  let flakyId = "";
  await test.step("a request: its run goes Retrying, with its next attempt's time, then Success", async () => {
    await page.getByRole("tab", { name: "Runs" }).click();
    await expect(page.getByRole("status").filter({ hasText: "Live" })).toBeVisible({ timeout: 20_000 });
    // Every status the list shows, as it shows it: a retry's wait is a second or two, which a
    // look now and then could miss.
    await grid.evaluate((el) => {
      const seen: string[] = [];
      (window as unknown as { seenStatuses: string[] }).seenStatuses = seen;
      new MutationObserver(() => {
        const text = el.querySelector("[role=row][data-run-id] .status-chip")?.textContent ?? "";
        if (text && seen.at(-1) !== text) seen.push(text);
      }).observe(el, { subtree: true, childList: true, characterData: true });
    });
    const res = await fetch(workflow.endpoint_url, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ token: randomUUID(), failures: 2 }),
    });
    expect(res.status).toBe(200);
    flakyId = res.headers.get("x-headwater-run-id") ?? "";
    const status = rows.first().getByRole("gridcell").first();
    await expect(status).toHaveText(/^Retrying( · attempt 2)? · next attempt (in \d s|any moment)$/, {
      timeout: 20_000,
    });
    await expect(rows.first()).toHaveAttribute("data-run-id", flakyId);
    await expect(status).toHaveText("Success · attempt 3", { timeout: 30_000 });
    const seen = await page.evaluate(() => (window as unknown as { seenStatuses: string[] }).seenStatuses);
    // Queued and Running come and go between attempts (or too fast to paint): the order of the
    // rest is what counts, once per stretch.
    const waits = seen.filter((s) => s === "Retrying" || s === "Success").filter((s, i, a) => a[i - 1] !== s);
    expect(waits).toEqual(["Retrying", "Success"]);
  });

  await test.step("the inspector lists the attempts: two errors at step b, then success", async () => {
    await grid.focus();
    await page.keyboard.press("ArrowDown");
    await page.keyboard.press("Enter");
    const inspector = page.getByRole("complementary", { name: `Run ${flakyId}` });
    await expect(inspector.getByRole("heading", { name: /^Run/ })).toContainText("Success");
    const attempts = inspector.getByRole("table").getByRole("row");
    await expect(attempts).toHaveCount(4);
    await expect(attempts.nth(1)).toContainText("Step b: attempt 1 fails on purpose");
    await expect(attempts.nth(2)).toContainText("Step b: attempt 2 fails on purpose");
    await expect(attempts.nth(3)).toContainText("Success");
    await inspector.getByRole("tab", { name: /b/ }).click();
    await expect(inspector.getByRole("tree", { name: "Return value of step b" })).toContainText(
      "synced after 3",
    );
    await expect(inspector.getByRole("button", { name: "Cancel run" })).toHaveCount(0);
    await screenshot(page, "controls-02-attempts");
    await expectAccessibleInBothSchemes(page, "a retried run's attempts in the run inspector");
  });

  await test.step("a run whose retry waits a minute is cancelled from the inspector", async () => {
    await api.updateWorkflow(workflow.id, { retry: { initial_delay_seconds: 60, max_delay_seconds: 120 } });
    const res = await fetch(workflow.endpoint_url, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ token: randomUUID(), failures: 99 }),
    });
    const waitingId = res.headers.get("x-headwater-run-id") ?? "";
    await expect(rows).toHaveCount(2);
    await expect(rows.first()).toHaveAttribute("data-run-id", waitingId);
    await expect(rows.first().getByRole("gridcell").first()).toHaveText(
      /^Retrying · next attempt in \d+ s$/,
      {
        timeout: 20_000,
      },
    );
    await rows.first().click();
    const inspector = page.getByRole("complementary", { name: `Run ${waitingId}` });
    await expect(inspector).toContainText(/Next attempt.*\(next attempt in \d+ s\)/);
    await expect(inspector.getByRole("table").getByRole("row")).toHaveCount(2);
    await screenshot(page, "controls-03-retrying");
    await expectAccessibleInBothSchemes(page, "a retrying run with Cancel in the run inspector");
    await inspector.getByRole("button", { name: "Cancel run" }).click();
    await expect(rows.first().getByRole("gridcell").first()).toHaveText("Cancelled");
    await expect(inspector.getByRole("heading", { name: /^Run/ })).toContainText("Cancelled");
    await expect(inspector.getByRole("button", { name: "Cancel run" })).toHaveCount(0);
    expect((await api.getWorkflowRun(workflow.id, waitingId)).status).toBe("cancelled");
  });

  expect(errors).toEqual([]);
});
