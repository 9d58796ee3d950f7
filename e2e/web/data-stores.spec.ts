/**
 * Data stores in Chromium against web mode and a real server: a store is created on the Data
 * stores page, a record added (its JSON value typed into the code editor) and edited (value and
 * TTL), the records narrowed by a key prefix, a record deleted, and the store deleted; a store a
 * source names is refused with the holder named. axe finds nothing on the page and its dialogs,
 * light and dark. Screenshots: e2e/screenshots/stores-*.png.
 */
import { expectAccessibleInBothSchemes } from "../support/axe.js";
import { expect, requireChromium, screenshot, test } from "../support/fixtures.js";

requireChromium();
test.use({ viewport: { width: 1440, height: 1000 } });

test("a store made on the Data stores page: records added, edited, searched by prefix and deleted", async ({
  dashboard,
}) => {
  test.setTimeout(180_000);
  const { page, api } = dashboard;
  const stores = page.getByRole("region", { name: "Stores" });

  await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Data stores" }).click();
  await page.getByRole("heading", { name: "Data stores", level: 1 }).waitFor();
  await expect(stores.getByText("No data stores yet.")).toBeVisible({ timeout: 30_000 });
  await expectAccessibleInBothSchemes(page, "the Data stores page (empty)");

  await stores.getByRole("button", { name: "New data store" }).click();
  const create = page.getByRole("dialog", { name: "New data store" });
  await create.getByLabel("Name", { exact: true }).fill("sessions");
  await create.getByRole("button", { name: "Create store" }).click();
  await expect(create).toBeHidden({ timeout: 15_000 });
  await expect(stores.getByRole("row", { name: "sessions" })).toBeVisible();
  const [store] = (await api.listMyDataStores()).data;
  expect(store).toMatchObject({ name: "sessions", keys: 0 });
  const records = page.getByRole("region", { name: "Records of sessions" });
  await expect(records.getByText("No records yet.")).toBeVisible();

  // A record typed in the dialog: a bad JSON value is said before anything is sent.
  await records.getByRole("button", { name: "Add record" }).click();
  const add = page.getByRole("dialog", { name: "Add record" });
  await add.getByLabel("Key", { exact: true }).fill("user:1");
  const editor = add.getByRole("textbox", { name: "Value (JSON)" });
  await editor.click();
  // The editor closes brackets and quotes as they are typed: this is `{"name": Ada}`.
  await page.keyboard.type('{"name": Ada');
  await add.getByRole("button", { name: "Add record" }).click();
  await expect(add.getByRole("alert").first()).toContainText("not JSON");
  await expectAccessibleInBothSchemes(page, "the Add record dialog with a validation error");
  await editor.click();
  await page.keyboard.press("ControlOrMeta+a");
  await page.keyboard.type('{"name": "Ada"');
  await screenshot(page, "stores-01-add-record");
  await add.getByRole("button", { name: "Add record" }).click();
  await expect(add).toBeHidden({ timeout: 15_000 });
  await expect(records.getByRole("row", { name: "user:1" })).toContainText('{"name":"Ada"}');
  expect(await api.getDataStoreRecord(store!.id, "user:1")).toEqual({
    key: "user:1",
    value: { name: "Ada" },
    expires_at_ms: null,
  });

  // Two more, through the API; the page shows them in key order.
  await api.putDataStoreRecord(store!.id, "user:2", { value: "Grace" });
  await api.putDataStoreRecord(store!.id, "order:9", { value: 42 });
  await page.reload();
  await page.getByRole("button", { name: "sessions", exact: true }).click();
  await expect(records.getByRole("row")).toHaveCount(4, { timeout: 15_000 });
  await expect(records.getByRole("row").nth(1)).toHaveAccessibleName("order:9");

  // Edit: the value and a TTL.
  await records.getByRole("button", { name: "Edit user:1" }).click();
  const edit = page.getByRole("dialog", { name: "Edit user:1" });
  const value = edit.getByRole("textbox", { name: "Value (JSON)" });
  await expect(value).toContainText('"name": "Ada"');
  await value.click();
  await page.keyboard.press("ControlOrMeta+a");
  await page.keyboard.type('{"name": "Ada Lovelace", "visits": 2}');
  await edit.getByLabel("TTL in seconds").fill("3600");
  await expectAccessibleInBothSchemes(page, "the Edit record dialog");
  await edit.getByRole("button", { name: "Save" }).click();
  await expect(edit).toBeHidden({ timeout: 15_000 });
  const edited = await api.getDataStoreRecord(store!.id, "user:1");
  expect(edited.value).toEqual({ name: "Ada Lovelace", visits: 2 });
  expect(edited.expires_at_ms).toBeGreaterThan(Date.now() + 3_500_000);
  await expect(records.getByRole("row", { name: "user:1" })).toContainText("Ada Lovelace");

  // Search by prefix.
  await records.getByRole("searchbox", { name: "Search keys by prefix" }).fill("user:");
  await expect(records.getByRole("row")).toHaveCount(3);
  await expect(records.getByRole("row", { name: "order:9" })).toHaveCount(0);
  await expectAccessibleInBothSchemes(page, "the Data stores page with a store's records, searched");
  await screenshot(page, "stores-02-records");
  await records.getByRole("searchbox", { name: "Search keys by prefix" }).fill("nobody");
  await expect(records.getByText("No key starts with")).toBeVisible();
  await records.getByRole("searchbox", { name: "Search keys by prefix" }).fill("");

  // Delete a record, after asking.
  await records.getByRole("button", { name: "Delete user:2" }).click();
  const confirmRecord = page.getByRole("dialog", { name: "Delete user:2?" });
  await confirmRecord.getByRole("button", { name: "Delete record" }).click();
  await expect(records.getByRole("row", { name: "user:2" })).toHaveCount(0, { timeout: 15_000 });
  expect((await api.listDataStoreRecords(store!.id)).data.map((r) => r.key)).toEqual(["order:9", "user:1"]);

  // A store a source names cannot be deleted: the dialog says which source.
  const code = `export default { name: "uses sessions", version: "0.0.1", props: { http: "$.interface.http", store: { type: "data_store" } }, async run() {} };`;
  const source = await api.createSource({
    component_code: code,
    name: "session-keeper",
    configured_props: { store: store!.id },
  });
  await stores.getByRole("button", { name: "Delete sessions" }).click();
  const confirm = page.getByRole("dialog", { name: "Delete sessions?" });
  await confirm.getByRole("button", { name: "Delete store" }).click();
  await expect(confirm.getByRole("alert")).toContainText("session-keeper", { timeout: 15_000 });
  await expect(confirm.getByRole("alert")).toContainText("data_store_in_use");
  await expectAccessibleInBothSchemes(page, "the Delete store dialog refused: in use");
  await screenshot(page, "stores-03-in-use");
  await confirm.getByRole("button", { name: "Cancel" }).click();
  await api.deleteSource(source.id);
  await stores.getByRole("button", { name: "Delete sessions" }).click();
  await page
    .getByRole("dialog", { name: "Delete sessions?" })
    .getByRole("button", { name: "Delete store" })
    .click();
  await expect(stores.getByText("No data stores yet.")).toBeVisible({ timeout: 15_000 });
  expect((await api.listMyDataStores()).data).toEqual([]);
});
