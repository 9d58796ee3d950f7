/** Component code and helpers shared by the API tests. */
import crypto from "node:crypto";
import { expect } from "vitest";
import { ApiError } from "../../shared/client/index.js";

export const uniqueKey = (prefix = "test") => `${prefix}-${crypto.randomBytes(4).toString("hex")}`;

/** A minimal timer source (ESM). */
export const timerComponent = (key = uniqueKey("timer"), name = "Test Timer") => `
export default {
  key: "${key}",
  name: "${name}",
  version: "0.1.0",
  props: { timer: { type: "$.interface.timer", default: { intervalSeconds: 60 } } },
  async run() { this.$emit({ at: Date.now() }); },
};
`;

/** A CommonJS source with one prop of each kind the API validates. */
export const propsComponent = (key = uniqueKey("props")) => `
module.exports = {
  key: "${key}",
  name: "Props Source",
  version: "1.2.3",
  description: "every prop kind",
  props: {
    url: { type: "string", label: "Feed URL" },
    mode: { type: "string", options: ["fast", { label: "Slow", value: "slow" }], default: "fast" },
    count: { type: "integer", min: 1, max: 10, optional: true },
    enabled: { type: "boolean", default: true },
    tags: { type: "string[]", optional: true },
    token: { type: "string", secret: true, optional: true },
    timer: { type: "$.interface.timer", default: { intervalSeconds: 900 } },
    http: "$.interface.http",
    db: "$.service.db",
  },
  async run() {},
};
`;

/** Awaits a rejected client call and checks its status and code. */
export async function expectApiError(p: Promise<unknown>, status: number, code?: string): Promise<ApiError> {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err, `expected HTTP ${status}`).toBeInstanceOf(ApiError);
  const e = err as ApiError;
  expect(e.status, e.message).toBe(status);
  if (code) expect(e.code, e.message).toBe(code);
  return e;
}

/** A raw request (for malformed bodies, missing headers and the like). */
export async function rawRequest(
  url: string,
  init: { method?: string; key?: string; body?: string; contentType?: string } = {},
): Promise<{ status: number; body: unknown }> {
  const headers: Record<string, string> = {};
  if (init.key) headers.Authorization = `Bearer ${init.key}`;
  if (init.body !== undefined) headers["Content-Type"] = init.contentType ?? "application/json";
  const res = await fetch(url, { method: init.method ?? "GET", headers, body: init.body });
  const text = await res.text();
  let body: unknown = text;
  try {
    body = text ? JSON.parse(text) : undefined;
  } catch {
    /* not JSON: keep the text */
  }
  return { status: res.status, body };
}
