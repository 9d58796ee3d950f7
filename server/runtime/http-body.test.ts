import { describe, expect, it } from "vitest";
import { runnableHttpEvent, storedHttpEvent } from "./http-body.js";
import { httpEventOf } from "./triggers/http.js";

/** The event a component used to get: the request's event with its body parsed. */
const requestEvent = (contentType: string, raw: string) =>
  runnableHttpEvent(httpEventOf("POST", "/e/dc_x?a=1", { "content-type": contentType, host: "h" }, raw, "dc_x"));

describe("an endpoint request's body in its queued job", () => {
  it("is kept once, as received, and parsed again for the run, field order included", () => {
    const cases: Array<[string, string, unknown]> = [
      ["application/json", '{"a":[1,2],"b":"x"}', { a: [1, 2], b: "x" }],
      ["application/vnd.api+json; charset=utf-8", "[1,2]", [1, 2]],
      ["application/json", "{not json", "{not json"],
      ["application/x-www-form-urlencoded", "a=1&a=2&b=%20", { a: ["1", "2"], b: " " }],
      ["text/plain", "hello", "hello"],
      ["application/json", "", ""],
    ];
    for (const [type, raw, body] of cases) {
      const event = requestEvent(type, raw) as Record<string, unknown>;
      expect(event.body).toEqual(body);
      const stored = JSON.parse(JSON.stringify(storedHttpEvent(event))) as Record<string, unknown>;
      expect(stored).not.toHaveProperty("body");
      expect(stored.bodyRaw).toBe(raw);
      // What the run sees is what it saw before, down to the JSON text a component might make of it.
      expect(JSON.stringify(runnableHttpEvent(stored))).toBe(JSON.stringify(event));
    }
  });

  it("leaves a job queued with its body (by an older build) as it is", () => {
    const old = { method: "POST", path: "/", query: {}, headers: { "content-type": "application/json" }, bodyRaw: '{"a":1}', body: { a: "kept" } };
    expect(runnableHttpEvent(old)).toBe(old);
  });

  it("touches nothing that is not a request's event", () => {
    for (const event of [null, "text", 3, [1, 2], { body: 1 }, { bodyRaw: 5, body: 1 }]) {
      expect(storedHttpEvent(event)).toBe(event);
      expect(runnableHttpEvent(event)).toBe(event);
    }
  });
});
