// @vitest-environment happy-dom
/** A code step's data_store prop in the builder's Props section: one of the user's stores, by id. */
import { screen, within } from "@testing-library/react";
import { userEvent } from "@testing-library/user-event";
import { describe, expect, it, vi } from "vitest";
import { FakeBridge } from "../../test/fakeBridge.js";
import { renderWith } from "../../test/render.js";
import { StepPropsSection } from "../workflows/builder/StepProps.js";

describe("a data_store prop of a code step", () => {
  it("chooses one of the user's stores by name, giving its id; a store not among them stays shown", async () => {
    const bridge = new FakeBridge();
    await bridge.createDataStore("counters");
    await bridge.createDataStore("cache");
    const [cache, counters] = bridge.dataStores;
    const onChange = vi.fn();
    renderWith(
      bridge,
      <StepPropsSection
        step="s"
        declared={[{ name: "store", type: "data_store" }]}
        configured={{ store: "ds_gone" }}
        problems={[
          {
            step: "s",
            prop: "store",
            line: null,
            column: null,
            message: "prop store: data store ds_gone not found",
          },
        ]}
        onChange={onChange}
      />,
    );
    const select = screen.getByRole("combobox", { name: "store" });
    await within(select).findByRole("option", { name: `counters (${counters!.id})` });
    expect(
      within(select)
        .getAllByRole("option")
        .map((o) => o.textContent),
    ).toEqual(["Choose a data store", "ds_gone", `cache (${cache!.id})`, `counters (${counters!.id})`]);
    expect(select.getAttribute("aria-invalid")).toBe("true");
    await userEvent.selectOptions(select, counters!.id);
    expect(onChange).toHaveBeenLastCalledWith({ store: counters!.id });
    await userEvent.selectOptions(select, "");
    expect(onChange).toHaveBeenLastCalledWith({});
  });
});
