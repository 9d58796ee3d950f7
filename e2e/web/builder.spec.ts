/**
 * Building a workflow in Chromium against a real server (web mode): a step's code is changed in
 * the Steps tab's editor (CodeMirror), autosaved to the draft, found again after a reload; the
 * draft is tested on a recent trigger event (a request to its endpoint), step by step, with each
 * step's result shown under it, a later step's result marked stale once an earlier step changes,
 * and the earlier results reused by the next test; a step is added, named, moved and deleted from
 * the keyboard alone; then the draft is deployed with a message as the next
 * version; the History tab diffs two versions and restores the first. axe finds nothing in either
 * colour scheme along the way. Screenshots: e2e/screenshots/builder-*.png at 1440 and 720 px, and
 * the draft in the dark theme (builder-02-history is the picture docs/images/builder-history.png
 * was taken from, builder-04-stale the one of docs/images/builder-test.png).
 */
import { expectAccessibleInBothSchemes } from "../support/axe.js";
import { expect, requireChromium, screenshot, test } from "../support/fixtures.js";

requireChromium();
test.use({ viewport: { width: 1440, height: 1000 } });

const step = (body: string) =>
  `export default defineComponent({\n  async run({ steps, $ }) {\n    ${body}\n  },\n});\n`;

test("edit a step, find the draft after a reload, test it on an event, deploy it, diff two versions and restore one", async ({
  dashboard,
}) => {
  test.setTimeout(180_000);
  const { page, api, errors } = dashboard;
  const shout = {
    name: "shout",
    code: step("return String(steps.greet.$return_value).toUpperCase() + '!';"),
  };
  const workflow = await api.createWorkflow({
    name: "Greeter",
    steps: [{ name: "greet", code: step("return 'hi';") }, shout],
  });
  await api.updateWorkflow(workflow.id, {
    steps: [{ name: "greet", code: step("return 'hello ' + steps.trigger.event.body.name;") }, shout],
    message: "say hello",
  });
  // A request at its endpoint: the trigger event the draft is tested on.
  const res = await fetch(workflow.endpoint_url, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ name: "Ada" }),
  });
  expect(res.status).toBe(200);
  await expect
    .poll(async () => (await api.listWorkflowRuns(workflow.id)).data[0]?.status, { timeout: 30_000 })
    .toBe("success");
  const steps = page.getByRole("tab", { name: /^Steps/ });
  const code = page.getByRole("textbox", { name: "Code of step greet" });

  await test.step("open the Steps tab: version 2 is deployed; type in the step's editor", async () => {
    await page.evaluate((hash) => (window.location.hash = hash), `#/workflows/${workflow.id}`);
    await page.getByRole("heading", { name: "Greeter", level: 2 }).waitFor();
    await steps.click();
    await expect(page.getByText("Deployed version 2")).toBeVisible();
    await code.click();
    await page.keyboard.press("Control+End");
    await page.keyboard.type("// greets");
    await expect(page.getByText("Draft, not deployed")).toBeVisible();
    await expect(page.getByRole("status").filter({ hasText: /^Saved$/ })).toBeVisible();
    expect((await api.getWorkflowDraft(workflow.id)).workflow.steps[0]!.code).toContain("// greets");
  });

  await test.step("a reload finds the draft", async () => {
    await page.reload();
    await steps.click();
    await expect(page.getByText("Draft, not deployed")).toBeVisible();
    await expect(code).toContainText("// greets");
    await expectAccessibleInBothSchemes(page, "the builder with a draft");
    await screenshot(page, "builder-01-draft");
    await page.setViewportSize({ width: 720, height: 900 });
    await screenshot(page, "builder-01-draft-720");
    await page.setViewportSize({ width: 1440, height: 1000 });
    await page.emulateMedia({ colorScheme: "dark" });
    await screenshot(page, "builder-01-draft-dark");
    await page.emulateMedia({ colorScheme: "light" });
  });

  const greetResult = page.getByRole("region", { name: /^Test result of step greet/ });
  const shoutResult = page.getByRole("region", { name: /^Test result of step shout/ });
  await test.step("choose the request's event and test step shout: both steps' results inline", async () => {
    const pick = page.getByRole("combobox", { name: "Recent trigger event" });
    await expect(pick.getByRole("option")).toHaveCount(1);
    await expect(pick.getByRole("option").first()).toContainText("HTTP request");
    await pick.selectOption({ index: 0 });
    await page.getByText("The event", { exact: true }).click();
    await expect(page.getByRole("tree", { name: "The test event" })).toContainText("body");
    await page.getByRole("button", { name: "Test step shout" }).click();
    await expect(shoutResult).toContainText("Success", { timeout: 60_000 });
    await expect(shoutResult.getByRole("tree", { name: "Return value of step shout" })).toContainText(
      "HELLO ADA!",
    );
    await expect(greetResult.getByRole("tree", { name: "Return value of step greet" })).toContainText(
      "hello Ada",
    );
    // Kept apart: one test run, and still the one production run.
    expect((await api.listWorkflowRuns(workflow.id, { test: true })).data).toHaveLength(1);
    expect((await api.listWorkflowRuns(workflow.id)).data).toHaveLength(1);
    await expectAccessibleInBothSchemes(page, "the builder with a test result");
    await screenshot(page, "builder-03-test");
  });

  await test.step("edit step greet: shout's result is stale; test it again, then once more reusing greet's", async () => {
    await code.click();
    await page.keyboard.press("Control+End");
    await page.keyboard.type(" again");
    await expect(shoutResult).toHaveAccessibleName("Test result of step shout (stale)");
    await expect(shoutResult).toContainText("Stale: step greet changed since this test.");
    await expect(greetResult).toContainText("Stale: its code changed since this test.");
    await expectAccessibleInBothSchemes(page, "the builder with stale test results");
    await screenshot(page, "builder-04-stale");
    // From the keyboard: Ctrl+Enter in shout's code tests that step.
    await page.getByRole("textbox", { name: "Code of step shout" }).focus();
    await page.keyboard.press("Control+Enter");
    await expect(shoutResult).toHaveAccessibleName("Test result of step shout", { timeout: 60_000 });
    await expect(greetResult).not.toContainText("Stale");
    const fresh = (await api.listWorkflowRuns(workflow.id, { test: true })).data[0]!;
    expect(fresh.steps.map((s) => s.status)).toEqual(["success", "success"]);
    await page.getByRole("button", { name: "Test step shout" }).click();
    await expect
      .poll(async () => (await api.listWorkflowRuns(workflow.id, { test: true })).data.length, {
        timeout: 60_000,
      })
      .toBe(3);
    const reused = (await api.listWorkflowRuns(workflow.id, { test: true })).data[0]!;
    expect(reused.steps.map((s) => s.status)).toEqual(["reused", "success"]);
    await expect(shoutResult).toContainText(reused.id);
  });

  await test.step("from the keyboard: add a step, name it, move it up, delete it", async () => {
    const names = () =>
      page
        .getByRole("textbox", { name: /^Name of step/ })
        .evaluateAll((inputs) => inputs.map((i) => (i as HTMLInputElement).value));
    await page.getByRole("button", { name: "Add a code step" }).focus();
    await page.keyboard.press("Enter");
    await expect(page.getByRole("textbox", { name: "Name of step 3" })).toBeFocused();
    await page.keyboard.press("Control+a");
    await page.keyboard.type("tidy");
    await page.keyboard.press("Alt+ArrowUp");
    await expect.poll(names).toEqual(["greet", "tidy", "shout"]);
    await expect(page.getByRole("button", { name: "Move step tidy up" })).toBeFocused();
    await page.keyboard.press("Tab");
    await page.keyboard.press("Tab");
    await expect(page.getByRole("button", { name: "Delete step tidy" })).toBeFocused();
    await page.keyboard.press("Enter");
    await expect(page.getByRole("dialog", { name: "Delete step tidy?" })).toBeVisible();
    await page.keyboard.press("Tab");
    await page.keyboard.press("Enter");
    await expect.poll(names).toEqual(["greet", "shout"]);
    // The focus goes on to the step that took its place.
    await expect(page.getByRole("textbox", { name: "Name of step 2" })).toBeFocused();
    await expect
      .poll(async () => (await api.getWorkflowDraft(workflow.id)).workflow.steps.map((s) => s.name))
      .toEqual(["greet", "shout"]);
  });

  await test.step("deploy it with a message: version 3", async () => {
    await page.getByRole("textbox", { name: "Message" }).fill("a comment");
    await page.getByRole("button", { name: "Deploy", exact: true }).click();
    await expect(
      page.getByRole("region", { name: "Draft and deploy" }).getByText("Deployed version 3"),
    ).toBeVisible();
    expect((await api.getWorkflow(workflow.id)).steps[0]!.code).toContain("// greets again");
    // The results stay with their steps after the deploy.
    await expect(shoutResult).toContainText("HELLO ADA!");
  });

  const history = page.getByRole("table", { name: "Versions of Greeter, newest first" });
  await test.step("History: diff version 1 with version 3", async () => {
    await page.getByRole("tab", { name: "History" }).click();
    await expect(history.getByRole("row")).toHaveCount(4);
    await expect(history.getByRole("row").nth(1)).toContainText("a comment");
    await page.getByRole("radio", { name: "Version 1 as A" }).check();
    const diff = page.getByRole("region", { name: "Changes from version 1 (A) to version 3 (B)" });
    const lines = diff.getByRole("region", { name: "Step greet: changed" });
    await expect(lines.locator(".diff-del")).toContainText(["-    return 'hi';"]);
    await expect(lines.locator(".diff-add")).toContainText([
      "+    return 'hello ' + steps.trigger.event.body.name;",
      "+// greets again",
    ]);
    await expectAccessibleInBothSchemes(page, "a workflow's history and a diff");
    await screenshot(page, "builder-02-history");
    await page.setViewportSize({ width: 720, height: 900 });
    await screenshot(page, "builder-02-history-720");
    await page.setViewportSize({ width: 1440, height: 1000 });
  });

  await test.step("restore version 1 after confirming: version 4", async () => {
    await page.getByRole("button", { name: "Restore version 1" }).click();
    await page
      .getByRole("dialog", { name: "Restore version 1?" })
      .getByRole("button", { name: "Restore version 1" })
      .click();
    await expect(history.getByRole("row")).toHaveCount(5);
    await expect(history.getByRole("row").nth(1)).toContainText("restored from version 1");
    const restored = await api.getWorkflow(workflow.id);
    expect([restored.version, restored.steps[0]!.code]).toEqual([4, step("return 'hi';")]);
  });
  expect(errors).toEqual([]);
});
