import { describe, expect, it } from "vitest";
import type { PropDescriptor } from "../../../../shared/resources/index.js";
import { propValue, withProp } from "./StepProps.js";

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
