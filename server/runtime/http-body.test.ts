import { describe, expect, it } from "vitest";
import { runnableHttpEvent } from "./http-body.js";
import { httpEventOf } from "./triggers/http.js";

/** A request's event as its job keeps it: through JSON, as the queue stores and reads it. */
const storedEvent = (contentType: string, raw: string) =>
  JSON.parse(
    JSON.stringify(
      httpEventOf("POST", "/e/dc_x?a=1", { "content-type": contentType, host: "h" }, raw, "dc_x"),
    ),
  ) as Record<string, unknown>;

describe("an endpoint request's body in its queued job", () => {
  it("is kept once, as received, and parsed for the run, in the documented shape and field order", () => {
    const cases: Array<[string, string, unknown]> = [
      ["application/json", '{"a":[1,2],"b":"x"}', { a: [1, 2], b: "x" }],
      ["application/vnd.api+json; charset=utf-8", "[1,2]", [1, 2]],
      ["application/json", "{not json", "{not json"],
      ["application/x-www-form-urlencoded", "a=1&a=2&b=%20", { a: ["1", "2"], b: " " }],
      ["text/plain", "hello", "hello"],
      ["application/json", "", ""],
    ];
    for (const [type, raw, body] of cases) {
      const stored = storedEvent(type, raw);
      expect(stored).not.toHaveProperty("body");
      expect(stored.bodyRaw).toBe(raw);
      const event = runnableHttpEvent(stored) as Record<string, unknown>;
      expect(event.body).toEqual(body);
      // What the run sees is what it saw before, down to the JSON text a component might make of it.
      const documented = {
        method: "POST",
        path: "/",
        query: { a: "1" },
        headers: { "content-type": type, host: "h" },
        bodyRaw: raw,
        body,
      };
      expect(JSON.stringify(event)).toBe(JSON.stringify(documented));
    }
  });

  it("leaves a job queued with its body (by an older build) as it is", () => {
    const old = {
      method: "POST",
      path: "/",
      query: {},
      headers: { "content-type": "application/json" },
      bodyRaw: '{"a":1}',
      body: { a: "kept" },
    };
    expect(runnableHttpEvent(old)).toBe(old);
  });

  it("touches nothing that is not a request's event", () => {
    for (const event of [null, "text", 3, [1, 2], { body: 1 }, { bodyRaw: 5, body: 1 }]) {
      expect(runnableHttpEvent(event)).toBe(event);
    }
  });
});
