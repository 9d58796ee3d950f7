/**
 * Environment variables in Chromium against web mode and a real server: a secret variable is
 * added on the Environment page (its value typed into a password input, never on the page
 * again), a workflow step logs `process.env.NAME`, a request runs it, and the run's logs in the
 * run inspector show `****` where the value was. A plain variable is edited in place; deleting
 * asks first. axe finds nothing on the page and its dialogs. Screenshots: e2e/screenshots/env-*.png.
 */
import crypto from "node:crypto";
import { expectAccessible } from "../support/axe.js";
import { expect, requireChromium, screenshot, test } from "../support/fixtures.js";

requireChromium();
test.use({ viewport: { width: 1440, height: 1000 } });

const SECRET = `sk-e2e-${crypto.randomBytes(8).toString("hex")}`;
const step = (body: string) => `export default defineComponent({ async run({ steps, $ }) { ${body} } });`;

test("a secret added on the Environment page is **** in the logs of a run that printed it", async ({
  dashboard,
}) => {
  test.setTimeout(180_000);
  const { page, api, errors } = dashboard;
  const panel = page.getByRole("region", { name: "Variables" });
  /** The value typed is nowhere in the page (its HTML and its inputs' values). */
  const expectNoSecret = async () => {
    expect(await page.content()).not.toContain(SECRET);
    const values = await page
      .locator("input, textarea")
      .evaluateAll((els) => els.map((e) => (e as HTMLInputElement).value));
    expect(values).not.toContain(SECRET);
  };

  await test.step("add a secret variable and a plain one", async () => {
    await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Environment" }).click();
    await page.getByRole("heading", { name: "Environment", level: 1 }).waitFor();
    await expect(panel.getByText(/No variables yet/)).toBeVisible({ timeout: 30_000 });
    await expectAccessible(page, "the Environment page (empty)");

    await panel.getByRole("button", { name: "Add variable" }).click();
    const dialog = page.getByRole("dialog", { name: "Add variable" });
    await dialog.getByLabel("Name", { exact: true }).fill("HEADWATER_TOKEN");
    await dialog.getByRole("button", { name: "Add variable" }).click();
    await expect(dialog.getByRole("alert").first()).toContainText("reserved");
    await expectAccessible(page, "the Add variable dialog with its validation errors");
    await dialog.getByLabel("Name", { exact: true }).fill("API_TOKEN");
    const value = dialog.getByLabel("Value", { exact: true });
    await expect(value).toHaveAttribute("type", "password");
    await expect(dialog.getByRole("checkbox", { name: /Secret/ })).toBeChecked();
    await value.fill(SECRET);
    await screenshot(page, "env-01-add-secret");
    await dialog.getByRole("button", { name: "Add variable" }).click();
    await expect(dialog).toBeHidden({ timeout: 15_000 });
    await expect(panel.getByRole("row", { name: "API_TOKEN" })).toContainText("hidden");

    await panel.getByRole("button", { name: "Add variable" }).click();
    const plain = page.getByRole("dialog", { name: "Add variable" });
    await plain.getByLabel("Name", { exact: true }).fill("REGION");
    await plain.getByRole("checkbox", { name: /Secret/ }).uncheck();
    await plain.getByLabel("Value", { exact: true }).fill("eu-west");
    await plain.getByRole("button", { name: "Add variable" }).click();
    await expect(panel.getByRole("row", { name: "REGION" })).toContainText("eu-west");
    expect((await api.listMyEnvVars()).map((v) => [v.name, v.secret, v.value])).toEqual([
      ["API_TOKEN", true, undefined],
      ["REGION", false, "eu-west"],
    ]);
    await expectNoSecret();
    await expectAccessible(page, "the Environment page with a secret and a plain variable");
    await screenshot(page, "env-02-listed");
  });

  await test.step("a step logs process.env.API_TOKEN: the run's logs show ****", async () => {
    const workflow = await api.createWorkflow({
      name: "Uses the token",
      steps: [
        {
          name: "call",
          code: step(
            `console.log("token is", process.env.API_TOKEN, "in", process.env.REGION); return process.env.API_TOKEN.length;`,
          ),
        },
      ],
    });
    await page
      .getByRole("navigation", { name: "Main" })
      .getByRole("link", { name: "Workflows", exact: true })
      .click();
    await page.getByRole("link", { name: /Uses the token/ }).click();
    await page.getByRole("heading", { name: "Uses the token", level: 2 }).waitFor();
    await page.getByRole("tab", { name: "Runs" }).click();
    await expect(page.getByRole("status").filter({ hasText: "Live" })).toBeVisible({ timeout: 20_000 });
    const res = await fetch(workflow.endpoint_url, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: "{}",
    });
    expect(res.status).toBe(200);
    const runId = res.headers.get("x-headwater-run-id") ?? "";
    const rows = page
      .getByRole("grid", { name: `Runs of ${workflow.id}` })
      .locator("[role=row][data-run-id]");
    await expect(rows.first().getByRole("gridcell").first()).toHaveText("Success", { timeout: 20_000 });
    await rows.first().click();
    const inspector = page.getByRole("complementary", { name: `Run ${runId}` });
    const logs = inspector.getByRole("region", { name: "Logs of step call" });
    await expect(logs).toContainText("token is **** in eu-west");
    await expect(inspector.getByRole("tree", { name: "Return value of step call" })).toContainText(
      String(SECRET.length),
    );
    await expectNoSecret();
    await screenshot(page, "env-03-masked-logs");
  });

  await test.step("edit the plain one in place; replace the secret; delete after asking", async () => {
    await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Environment" }).click();
    await panel.getByRole("button", { name: "Edit REGION" }).click();
    const edit = page.getByRole("dialog", { name: "Edit REGION" });
    await expect(edit.getByLabel("Value", { exact: true })).toHaveValue("eu-west");
    await edit.getByLabel("Value", { exact: true }).fill("us-east");
    await edit.getByRole("button", { name: "Save" }).click();
    await expect(panel.getByRole("row", { name: "REGION" })).toContainText("us-east");

    await panel.getByRole("button", { name: "Replace value of API_TOKEN" }).click();
    const replace = page.getByRole("dialog", { name: "Replace the value of API_TOKEN" });
    await expect(replace.getByLabel("Value", { exact: true })).toHaveValue("");
    await expectAccessible(page, "the dialog that replaces a secret");
    await replace.getByRole("button", { name: "Cancel" }).click();

    await panel.getByRole("button", { name: "Delete REGION" }).click();
    const confirm = page.getByRole("dialog", { name: "Delete REGION?" });
    await expectAccessible(page, "the delete confirmation of a variable");
    await confirm.getByRole("button", { name: "Delete variable" }).click();
    await expect(panel.getByRole("row", { name: "REGION" })).toHaveCount(0, { timeout: 15_000 });
    expect((await api.listMyEnvVars()).map((v) => v.name)).toEqual(["API_TOKEN"]);
    await expectNoSecret();
  });
  expect(errors).toEqual([]);
});
