// @vitest-environment happy-dom
/**
 * The Data stores page against the fake bridge: stores listed with their keys, a store chosen
 * shows its records in key order, the prefix search narrows them, a bad TTL is said before any
 * call, a record deleted, a store in use refused with its holder named, a store renamed.
 */
import { screen, waitFor, within } from "@testing-library/react";
import { userEvent } from "@testing-library/user-event";
import { describe, expect, it } from "vitest";
import { FakeBridge } from "../../test/fakeBridge.js";
import { renderWith } from "../../test/render.js";
import { DataStoresView } from "./DataStoresView.js";

async function withStore(): Promise<{ bridge: FakeBridge; id: string }> {
  const bridge = new FakeBridge();
  const made = await bridge.createDataStore("sessions");
  if (!made.ok) throw new Error("no store");
  const id = made.value.id;
  for (const [key, value] of [
    ["user:2", "Grace"],
    ["order:9", 42],
    ["user:1", { name: "Ada" }],
  ] as const)
    await bridge.putDataStoreRecord(id, key, { value });
  bridge.calls.length = 0;
  return { bridge, id };
}

describe("Data stores page", () => {
  it("lists stores with their keys; a chosen store shows its records in key order, narrowed by prefix", async () => {
    const { bridge } = await withStore();
    renderWith(bridge, <DataStoresView />);
    const row = await screen.findByRole("row", { name: "sessions" });
    expect(row.textContent).toContain("3");
    await userEvent.click(within(row).getByRole("button", { name: "sessions" }));
    const records = await screen.findByRole("region", { name: "Records of sessions" });
    await waitFor(() => expect(within(records).getAllByRole("row")).toHaveLength(4));
    expect(
      within(records)
        .getAllByRole("row")
        .slice(1)
        .map((r) => r.getAttribute("aria-label")),
    ).toEqual(["order:9", "user:1", "user:2"]);
    expect(within(records).getByRole("row", { name: "user:1" }).textContent).toContain('{"name":"Ada"}');

    await userEvent.type(within(records).getByRole("searchbox", { name: "Search keys by prefix" }), "user:");
    await waitFor(() => expect(within(records).getAllByRole("row")).toHaveLength(3));
    expect(bridge.calls.filter((c) => c.method === "listDataStoreRecords").at(-1)?.args[1]).toMatchObject({
      prefix: "user:",
    });
  });

  it("says a bad TTL before calling; deletes a record after asking", async () => {
    const { bridge, id } = await withStore();
    renderWith(bridge, <DataStoresView />);
    await userEvent.click(await screen.findByRole("button", { name: "sessions" }));
    const records = await screen.findByRole("region", { name: "Records of sessions" });
    await userEvent.click(await within(records).findByRole("button", { name: "Edit user:2" }));
    const dialog = screen.getByRole("dialog", { name: "Edit user:2" });
    await userEvent.type(within(dialog).getByLabelText("TTL in seconds"), "soon");
    await userEvent.click(within(dialog).getByRole("button", { name: "Save" }));
    expect(within(dialog).getAllByRole("alert")[0]!.textContent).toMatch(/whole number of seconds/);
    expect(bridge.calls.filter((c) => c.method === "putDataStoreRecord")).toEqual([]);
    await userEvent.click(within(dialog).getByRole("button", { name: "Cancel" }));

    await userEvent.click(within(records).getByRole("button", { name: "Delete user:2" }));
    await userEvent.click(
      within(screen.getByRole("dialog", { name: "Delete user:2?" })).getByRole("button", {
        name: "Delete record",
      }),
    );
    await waitFor(() => expect(within(records).queryByRole("row", { name: "user:2" })).toBeNull());
    expect(
      bridge.storeRecords
        .get(id)
        ?.map((r) => r.key)
        .sort(),
    ).toEqual(["order:9", "user:1"]);
  });

  it("refuses to delete a store in use, naming what uses it; renames one", async () => {
    const { bridge, id } = await withStore();
    bridge.storesInUse.set(id, [{ path: "used_by.dc_1", message: 'source "keeper" (dc_1)' }]);
    renderWith(bridge, <DataStoresView />);
    await userEvent.click(await screen.findByRole("button", { name: "Delete sessions" }));
    const confirm = screen.getByRole("dialog", { name: "Delete sessions?" });
    await userEvent.click(within(confirm).getByRole("button", { name: "Delete store" }));
    const alert = await within(confirm).findByRole("alert");
    expect(alert.textContent).toContain("The store is in use");
    expect(alert.textContent).toContain('source "keeper"');
    await userEvent.click(within(confirm).getByRole("button", { name: "Cancel" }));
    expect(bridge.dataStores.map((d) => d.id)).toEqual([id]);

    await userEvent.click(screen.getByRole("button", { name: "Rename sessions" }));
    const rename = screen.getByRole("dialog", { name: "Rename sessions" });
    const name = within(rename).getByLabelText("Name");
    await userEvent.clear(name);
    await userEvent.type(name, "logins");
    await userEvent.click(within(rename).getByRole("button", { name: "Rename" }));
    await screen.findByRole("row", { name: "logins" });
  });
});
