/**
 * The create-source form for a component with an app prop and a prop whose choices come from
 * `async options()` (issue 12, point 5), in Chromium against web mode and a real server: the app
 * is a credentials group (the secret field masked), the choices are loaded through the options
 * endpoint with the credentials typed so far, and the source is created with them as `$auth`
 * (which the server keeps as a connected account: the source answers its reference).
 * Screenshots: e2e/screenshots/app-props-*.png.
 */
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
