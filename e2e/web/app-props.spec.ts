/**
 * The create-source form for a component with an app prop and a prop whose choices come from
 * `async options()` (issue 12, point 5), in Chromium against web mode and a real server: the app
 * is a credentials group (the secret field masked), the choices are loaded through the options
 * endpoint with the credentials typed so far, and the source is created with them as `$auth`
 * (which the server keeps as a connected account: the source answers its reference).
 * A code step's props in the builder (issue 47, item 5): the Props section lists what the
 * step's code declares, an account is picked and a value typed, the draft autosaved, and a test
 * of the step uses both. axe finds nothing in it in either colour scheme.
 * Screenshots: e2e/screenshots/app-props-*.png.
 */
import { expectAccessibleInBothSchemes } from "../support/axe.js";
import { expect, requireChromium, screenshot, test } from "../support/fixtures.js";

requireChromium();
test.use({ viewport: { width: 1280, height: 900 } });

/** An app whose options() answer depends on the credential typed in the form. */
const COMPONENT = `
const ticketing = {
  type: "app",
  app: "ticketing",
  propDefinitions: {
    queue: {
      type: "string",
      label: "Queue",
      async options() {
        const token = this.$auth.api_token;
        return [
          { label: "Support (" + token.slice(0, 3) + ")", value: "support" },
          { label: "Billing", value: "billing" },
        ];
      },
    },
  },
  methods: {
    tokenHint() { return this.$auth.api_token.slice(0, 3); },
  },
};
export default {
  key: "e2e-ticketing-new-ticket",
  name: "New ticket",
  version: "0.1.0",
  props: {
    ticketing,
    queue: { propDefinition: [ticketing, "queue"] },
    timer: { type: "$.interface.timer", default: { intervalSeconds: 3600 } },
  },
  async run() {
    this.$emit({ queue: this.queue, hint: this.ticketing.tokenHint() });
  },
};
`;

test.describe("create-source form for an app with credentials and choices (web mode)", () => {
  test("masks the secret credential, offers the options() choices, and creates the source with $auth as an account", async ({
    dashboard,
  }) => {
    const { page, api } = dashboard;
    await page.getByRole("button", { name: "+ New source" }).click();
    const dialog = page.getByRole("dialog");
    await dialog.getByRole("tab", { name: "Paste code" }).click();
    await dialog.getByLabel("Component code").fill(COMPONENT);
    await dialog.getByRole("button", { name: "Save code and continue" }).click();

    const group = dialog.getByRole("group", { name: /ticketing credentials/ });
    await group.waitFor({ timeout: 30_000 });
    // The app reads $auth.api_token: offered as a field, masked as a secret.
    const token = group.getByLabel("ticketing: api_token");
    expect(await token.getAttribute("type")).toBe("password");
    await token.fill("tok-123");

    await dialog.getByRole("button", { name: "Load choices for Queue" }).click();
    const choices = dialog.getByLabel("Queue: choices");
    await choices.waitFor({ timeout: 30_000 });
    // Computed in the sandbox from the credential typed above.
    expect(await choices.locator("option").allInnerTexts()).toEqual(["Choose…", "Support (tok)", "Billing"]);
    await choices.selectOption({ label: "Billing" });
    expect(await dialog.getByLabel("Queue", { exact: true }).inputValue()).toBe("billing");
    await dialog.getByLabel("Name", { exact: true }).fill("e2e tickets");
    await screenshot(page, "app-props-01-credentials-and-choices");

    await dialog.getByRole("button", { name: "Create source" }).click();
    await page.getByRole("heading", { name: "e2e tickets", level: 2 }).waitFor({ timeout: 30_000 });
    const created = (await api.listMySources()).data.find((s) => s.name === "e2e tickets");
    // The credentials went inline as $auth; the server keeps them as a connected account of
    // their own and answers its reference, never the value.
    expect(created?.configured_props).toMatchObject({
      ticketing: { authProvisionId: expect.stringMatching(/^apn_/) as unknown },
      queue: "billing",
    });
    const account = await api.getAccount((created!.configured_props.ticketing as { authProvisionId: string }).authProvisionId);
    expect([account.app, account.name, account.fields]).toEqual(["ticketing", "e2e tickets (ticketing)", ["api_token"]]);
    // The page never shows the credential in clear after it was typed.
    expect(await page.getByText("tok-123").count()).toBe(0);
    await screenshot(page, "app-props-02-source-created");
    expect(dashboard.errors).toEqual([]);
  });
});

/** A code step declaring an app prop and a string prop, returning what its run reads of them. */
const PROPS_STEP = `export default defineComponent({
  props: {
    github: { type: "app", app: "github" },
    greeting: { type: "string", label: "Greeting" },
  },
  async run({ steps, $ }) {
    return { said: this.greeting + " " + this.github.app, token_length: this.github.$auth.oauth_access_token.length };
  },
});
`;

test.describe("a code step's props in the builder (web mode)", () => {
  test("lists the props its code declares; an account picked and a value typed are used by a test of the step", async ({
    dashboard,
  }) => {
    test.setTimeout(120_000);
    const { page, api } = dashboard;
    const account = await api.createAccount({
      app: "github",
      name: "e2e github",
      auth: { oauth_access_token: "gho_e2e_0123456789" },
    });
    const workflow = await api.createWorkflow({
      name: "Props",
      active: false,
      steps: [{ name: "hello", code: "export default defineComponent({ async run() { return 1; } });" }],
    });
    // The draft takes the step before its props have values (the builder fills them in).
    await api.updateWorkflowDraft(workflow.id, { steps: [{ name: "hello", code: PROPS_STEP }] });
    await page.evaluate((hash) => (window.location.hash = hash), `#/workflows/${workflow.id}`);
    await page.getByRole("heading", { name: "Props", level: 2 }).waitFor();
    await page.getByRole("tab", { name: /^Steps/ }).click();

    const section = page.getByRole("region", { name: "Props of step hello" });
    await expect(section).toBeVisible({ timeout: 30_000 });
    await expect(section).toContainText("required: a connected account");
    await expect(page.getByText("Step hello: prop github: required")).toBeVisible();
    await section.getByRole("combobox", { name: "github: account" }).selectOption(account.id);
    await section.getByRole("textbox", { name: "Greeting" }).fill("Hello");
    await expect(page.getByRole("status").filter({ hasText: /^Saved$/ })).toBeVisible({ timeout: 30_000 });
    await expect(section).not.toContainText("required");
    expect((await api.getWorkflowDraft(workflow.id)).workflow.steps[0]!.configured_props).toEqual({
      github: { authProvisionId: account.id },
      greeting: "Hello",
    });
    await expectAccessibleInBothSchemes(page, "a code step's Props section");
    await screenshot(page, "app-props-03-code-step-props");

    await page.getByRole("button", { name: "Test step hello" }).click();
    const result = page.getByRole("region", { name: /^Test result of step hello/ });
    await expect(result).toContainText("Success", { timeout: 60_000 });
    const value = result.getByRole("tree", { name: "Return value of step hello" });
    await expect(value).toContainText("Hello github");
    await expect(value).toContainText("18");
    await expectAccessibleInBothSchemes(page, "a code step's Props section with a test result");
    expect(dashboard.errors).toEqual([]);
  });
});
