// @vitest-environment happy-dom
import { screen, waitFor, within } from "@testing-library/react";
import { userEvent } from "@testing-library/user-event";
import { describe, expect, it } from "vitest";
import { FakeBridge } from "../test/fakeBridge.js";
import { renderWith } from "../test/render.js";
import { ConfirmDialog } from "./ConfirmDialog.js";
import { JsonTree } from "./JsonTree.js";

describe("confirm dialog", () => {
  it("starts on Cancel, closes on Escape, and keeps a failed action's error in place", async () => {
    let closed = 0;
    let attempts = 0;
    renderWith(
      new FakeBridge(),
      <ConfirmDialog
        title="Delete it?"
        message={<p>Gone for good.</p>}
        confirmLabel="Delete"
        onConfirm={async () => {
          attempts++;
          throw new Error("The server said no.");
        }}
        onClose={() => closed++}
      />,
    );
    const dialog = screen.getByRole("dialog", { name: "Delete it?" });
    expect(document.activeElement?.textContent).toBe("Cancel");
    await userEvent.click(within(dialog).getByRole("button", { name: "Delete" }));
    expect(await within(dialog).findByRole("alert")).toBeTruthy();
    expect(within(dialog).getByRole("alert").textContent).toContain("The server said no.");
    expect(attempts).toBe(1);
    expect(closed).toBe(0);
    await userEvent.keyboard("{Escape}");
    await waitFor(() => expect(closed).toBe(1));
  });
});

describe("JSON tree", () => {
  it("shows nested data, collapses and expands on click", async () => {
    renderWith(
      new FakeBridge(),
      <JsonTree value={{ user: { name: "ada", tags: ["x", 2, null, true] } }} openDepth={1} />,
    );
    const tree = screen.getByRole("tree", { name: "JSON" });
    expect(tree.textContent).toContain("user");
    expect(tree.textContent).not.toContain('"ada"');
    await userEvent.click(screen.getByRole("button", { name: "Expand user: 2 keys" }));
    expect(tree.textContent).toContain('"ada"');
    await userEvent.click(screen.getByRole("button", { name: "Expand tags: 4 items" }));
    expect(tree.textContent).toContain("null");
    expect(tree.textContent).toContain("true");
    await userEvent.click(screen.getByRole("button", { name: "Collapse root" }));
    expect(tree.textContent).not.toContain("user:");
  });
});
