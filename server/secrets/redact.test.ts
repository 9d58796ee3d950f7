import { describe, expect, it } from "vitest";
import { redactorFor } from "./redact.js";

describe("redactorFor", () => {
  const r = redactorFor([{ host: "db.internal", user: "app", password: 'pa"ss\\word-1', nested: { api_token: "tok-abcdef" } }])!;

  it("hides every value of 4 characters or more in text, as given and JSON-escaped", () => {
    expect(r.text("connect db.internal as app with pa\"ss\\word-1")).toBe("connect **** as app with ****");
    expect(r.text(JSON.stringify({ password: 'pa"ss\\word-1' }))).toBe('{"password":"****"}');
    expect(r.text("token tok-abcdef")).toBe("token ****");
  });

  it("hides values in every string of a JSON value, keys included", () => {
    expect(r.json({ message: "failed at db.internal", list: ["tok-abcdef"], n: 5 })).toEqual({ message: "failed at ****", list: ["****"], n: 5 });
  });

  it("in emitted data hides only the values of credential-named fields", () => {
    expect(r.emitted({ host: "db.internal", leaked: "pw pa\"ss\\word-1", t: "tok-abcdef" })).toEqual({ host: "db.internal", leaked: "pw ****", t: "****" });
  });

  it("has nothing to do for credentials without a value of 4 characters", () => {
    expect(redactorFor([{ a: "abc", b: 12345, c: true }])).toBeUndefined();
    expect(redactorFor([])).toBeUndefined();
  });
});
