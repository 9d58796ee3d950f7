// @vitest-environment happy-dom
/** The Environment page against the fake bridge: list, add, edit, replace a secret, delete. */
import { screen, waitFor, within } from "@testing-library/react";
import { userEvent } from "@testing-library/user-event";
import { describe, expect, it } from "vitest";
import { FakeBridge } from "../../test/fakeBridge.js";
import { renderWith } from "../../test/render.js";
import { EnvView } from "./EnvView.js";

async function withVars(): Promise<FakeBridge> {
  const bridge = new FakeBridge();
  await bridge.setEnvVar("API_KEY", { value: "sk-hidden-123" });
  await bridge.setEnvVar("REGION", { value: "eu-west", secret: false });
  bridge.calls.length = 0;
  return bridge;
}

describe("Environment page", () => {
  it("lists variables by name: a plain value shown, a secret's never", async () => {
    const bridge = await withVars();
    renderWith(bridge, <EnvView />);
    const secret = await screen.findByRole("row", { name: "API_KEY" });
    expect(secret.textContent).toContain("hidden");
    expect(within(screen.getByRole("row", { name: "REGION" })).getByText("eu-west")).toBeTruthy();
    expect(document.body.innerHTML).not.toContain("sk-hidden-123");
    expect(screen.getByText("2 of 200")).toBeTruthy();
  });

  it("adds a secret by default; refuses a bad, reserved or taken name and an empty secret before calling", async () => {
    const bridge = await withVars();
    renderWith(bridge, <EnvView />);
    await userEvent.click(await screen.findByRole("button", { name: "Add variable" }));
    const dialog = screen.getByRole("dialog", { name: "Add variable" });
    const name = within(dialog).getByLabelText("Name");
    for (const [typed, error] of [
      ["1BAD", /letter or _/],
      ["HEADWATER_X", /reserved/],
      ["REGION", /exists already/],
    ] as const) {
      await userEvent.clear(name);
      await userEvent.type(name, typed);
      await userEvent.click(within(dialog).getByRole("button", { name: "Add variable" }));
      expect(within(dialog).getAllByRole("alert")[0]!.textContent).toMatch(error);
    }
    await userEvent.clear(name);
    await userEvent.type(name, "TOKEN");
    await userEvent.click(within(dialog).getByRole("button", { name: "Add variable" }));
    expect(
      within(dialog)
        .getAllByRole("alert")
        .map((a) => a.textContent),
    ).toEqual([expect.stringMatching(/enter the value/)]);
    expect(bridge.calls.filter((c) => c.method === "setEnvVar")).toEqual([]);

    const value = within(dialog).getByLabelText("Value");
    expect(value.getAttribute("type")).toBe("password");
    await userEvent.type(value, "tok-secret-9");
    await userEvent.click(within(dialog).getByRole("button", { name: "Add variable" }));
    await waitFor(() => expect(screen.queryByRole("dialog")).toBeNull());
    expect(bridge.envSecretValues.get("TOKEN")).toBe("tok-secret-9");
    expect(await screen.findByRole("row", { name: "TOKEN" })).toBeTruthy();
    expect(document.body.innerHTML).not.toContain("tok-secret-9");
  });

  it("edits a plain value in place; replacing a secret starts from an empty value; deletes after asking", async () => {
    const bridge = await withVars();
    renderWith(bridge, <EnvView />);
    await userEvent.click(await screen.findByRole("button", { name: "Edit REGION" }));
    let dialog = screen.getByRole("dialog", { name: "Edit REGION" });
    const plain = within(dialog).getByLabelText("Value");
    expect((plain as HTMLTextAreaElement).value).toBe("eu-west");
    await userEvent.clear(plain);
    await userEvent.type(plain, "us-east");
    await userEvent.click(within(dialog).getByRole("button", { name: "Save" }));
    expect(
      await within(await screen.findByRole("row", { name: "REGION" })).findByText("us-east"),
    ).toBeTruthy();

    await userEvent.click(screen.getByRole("button", { name: "Replace value of API_KEY" }));
    dialog = screen.getByRole("dialog", { name: "Replace the value of API_KEY" });
    expect((within(dialog).getByLabelText("Value") as HTMLInputElement).value).toBe("");
    await userEvent.type(within(dialog).getByLabelText("Value"), "sk-new-456");
    await userEvent.click(within(dialog).getByRole("button", { name: "Save" }));
    await waitFor(() => expect(bridge.envSecretValues.get("API_KEY")).toBe("sk-new-456"));

    await userEvent.click(await screen.findByRole("button", { name: "Delete REGION" }));
    await userEvent.click(
      within(screen.getByRole("dialog")).getByRole("button", { name: "Delete variable" }),
    );
    await waitFor(() => expect(screen.queryByRole("row", { name: "REGION" })).toBeNull());
    expect(bridge.envVars.map((v) => v.name)).toEqual(["API_KEY"]);
  });

  it("says what to do when there is none", async () => {
    renderWith(new FakeBridge(), <EnvView />);
    expect(await screen.findByText(/No variables yet/)).toBeTruthy();
  });
});
