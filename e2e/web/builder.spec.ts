/**
 * Building a workflow in Chromium against a real server (web mode): a step's code is changed in
 * the Steps tab's editor (CodeMirror), autosaved to the draft, found again after a reload, and
 * deployed with a message as the next version; the History tab diffs two versions and restores
 * the first. axe finds nothing in either colour scheme. Screenshots: e2e/screenshots/builder-*.png
 * at 1440 and 720 px, and the draft in the dark theme (builder-02-history is the picture
 * docs/images/builder-history.png was taken from).
 */
import { expectAccessibleInBothSchemes } from "../support/axe.js";
import { expect, requireChromium, screenshot, test } from "../support/fixtures.js";

requireChromium();
test.use({ viewport: { width: 1440, height: 1000 } });

const step = (body: string) => `export default defineComponent({\n  async run({ steps, $ }) {\n    ${body}\n  },\n});\n`;

test("edit a step, find the draft after a reload, deploy it, diff two versions and restore one", async ({
  dashboard,
}) => {
  test.setTimeout(120_000);
  const { page, api, errors } = dashboard;
  const workflow = await api.createWorkflow({ name: "Greeter", steps: [{ name: "greet", code: step("return 'hi';") }] });
  await api.updateWorkflow(workflow.id, {
    steps: [{ name: "greet", code: step("return 'hello';") }],
    message: "say hello",
  });
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

  await test.step("deploy it with a message: version 3", async () => {
    await page.getByRole("textbox", { name: "Message" }).fill("a comment");
    await page.getByRole("button", { name: "Deploy", exact: true }).click();
    await expect(page.getByRole("region", { name: "Draft and deploy" }).getByText("Deployed version 3")).toBeVisible();
    expect((await api.getWorkflow(workflow.id)).steps[0]!.code).toContain("// greets");
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
    await expect(lines.locator(".diff-add")).toContainText(["+    return 'hello';", "+// greets"]);
    await expectAccessibleInBothSchemes(page, "a workflow's history and a diff");
    await screenshot(page, "builder-02-history");
    await page.setViewportSize({ width: 720, height: 900 });
    await screenshot(page, "builder-02-history-720");
    await page.setViewportSize({ width: 1440, height: 1000 });
  });

  await test.step("restore version 1 after confirming: version 4", async () => {
    await page.getByRole("button", { name: "Restore version 1" }).click();
    await page.getByRole("dialog", { name: "Restore version 1?" }).getByRole("button", { name: "Restore version 1" }).click();
    await expect(history.getByRole("row")).toHaveCount(5);
    await expect(history.getByRole("row").nth(1)).toContainText("restored from version 1");
    const restored = await api.getWorkflow(workflow.id);
    expect([restored.version, restored.steps[0]!.code]).toEqual([4, step("return 'hi';")]);
  });
  expect(errors).toEqual([]);
});
