// @vitest-environment happy-dom
import { screen } from "@testing-library/react";
import { userEvent } from "@testing-library/user-event";
import { describe, expect, it, vi } from "vitest";
import type { PropDescriptor } from "../../../../shared/resources/index.js";
import { FakeBridge } from "../../../test/fakeBridge.js";
import { renderWith } from "../../../test/render.js";
import { propValue, StepPropsSection, withProp } from "./StepProps.js";

const p = (type: string): PropDescriptor => ({ name: "x", type });

describe("a code step's prop fields", () => {
  it("turn what the field holds into the value the step's configured props keep", () => {
    expect(propValue(p("app"), "apn_1")).toEqual({ authProvisionId: "apn_1" });
    expect(propValue(p("app"), "")).toBeUndefined();
    expect(propValue(p("string"), "hi")).toBe("hi");
    expect(propValue(p("string"), "")).toBeUndefined();
    expect(propValue(p("integer"), "42")).toBe(42);
    expect(propValue(p("integer"), "-3")).toBe(-3);
    // Not an integer yet: kept as typed, for the server to say what is wrong with it.
    expect(propValue(p("integer"), "4.5")).toBe("4.5");
    expect(propValue(p("boolean"), true)).toBe(true);
    expect(propValue(p("boolean"), false)).toBe(false);
  });

  it("set a prop's value, or leave it out", () => {
    expect(withProp({ a: 1 }, "b", 2)).toEqual({ a: 1, b: 2 });
    expect(withProp({ a: 1, b: 2 }, "b", undefined)).toEqual({ a: 1 });
  });
});

describe("the Props section", () => {
  const declared: PropDescriptor[] = [
    { name: "label", type: "string", label: "Label" },
    { name: "limit", type: "integer", default: 10 },
    { name: "dry", type: "boolean" },
  ];

  it("types values into the step's configured props, and shows the server's problem at its field", async () => {
    const onChange = vi.fn();
    renderWith(
      new FakeBridge(),
      <StepPropsSection
        step="s"
        declared={declared}
        configured={{ label: "a" }}
        problems={[
          { step: "s", prop: "dry", line: null, column: null, message: "prop dry: required: true or false" },
        ]}
        onChange={onChange}
      />,
    );
    expect(screen.getByRole("region", { name: "Props of step s" })).toBeTruthy();
    await userEvent.type(screen.getByRole("spinbutton", { name: /limit/ }), "7");
    expect(onChange).toHaveBeenLastCalledWith({ label: "a", limit: 7 });
    await userEvent.click(screen.getByRole("checkbox", { name: "dry" }));
    expect(onChange).toHaveBeenLastCalledWith({ label: "a", dry: true });
    expect(screen.getByRole("checkbox", { name: "dry" }).getAttribute("aria-invalid")).toBe("true");
    expect(screen.getByText("prop dry: required: true or false")).toBeTruthy();
  });

  it("offers to remove a value of a prop the code no longer declares", async () => {
    const onChange = vi.fn();
    renderWith(
      new FakeBridge(),
      <StepPropsSection step="s" declared={[]} configured={{ old: 1 }} problems={[]} onChange={onChange} />,
    );
    expect(screen.getByText(/prop old: not a prop of this step's code/)).toBeTruthy();
    await userEvent.click(screen.getByRole("button", { name: "Remove old" }));
    expect(onChange).toHaveBeenLastCalledWith({});
  });
});
