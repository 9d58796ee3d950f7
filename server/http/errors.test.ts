import { describe, expect, it } from "vitest";
import { z } from "zod";
import { loadConfig } from "../config.js";
import { NotFoundError } from "../errors.js";
import { createHttpApp } from "./app.js";
import { route } from "./route.js";

/** The error model on a bare app (no database): what an unexpected fault looks like. */
describe("error model", () => {
  const make = async () => {
    const logged: unknown[] = [];
    const app = createHttpApp(loadConfig({ HEADWATER_LOG_LEVEL: "silent" }));
    app.log.error = ((obj: unknown) => logged.push(obj)) as typeof app.log.error;
    route(app, { method: "GET", url: "/boom", summary: "fails", auth: "none" }, async () => {
      throw new Error("secret detail at /srv/app.ts:12");
    });
    route(app, { method: "GET", url: "/missing", summary: "404", auth: "none" }, async () => {
      throw new NotFoundError("widget w_1");
    });
    route(
      app,
      {
        method: "GET",
        url: "/typed",
        summary: "query",
        auth: "none",
        query: z.object({ n: z.string().regex(/^\d+$/) }),
      },
      async ({ query }) => ({ data: query }),
    );
    await app.ready();
    return { app, logged };
  };

  it("answers an unexpected error with a bare 500 internal_error and logs it", async () => {
    const { app, logged } = await make();
    const res = await app.inject({ method: "GET", url: "/boom" });
    expect(res.statusCode).toBe(500);
    expect(res.json()).toEqual({ error: "internal server error", code: "internal_error" });
    expect(res.body).not.toContain("secret detail");
    expect(logged).toHaveLength(1);
    await app.close();
  });

  it("maps domain errors and validation failures", async () => {
    const { app } = await make();
    const nf = await app.inject({ method: "GET", url: "/missing" });
    expect(nf.statusCode).toBe(404);
    expect(nf.json()).toEqual({ error: "widget w_1 not found", code: "not_found" });
    const bad = await app.inject({ method: "GET", url: "/typed?n=abc" });
    expect(bad.statusCode).toBe(400);
    expect(bad.json()).toMatchObject({ code: "validation_failed", details: [{ path: "query.n" }] });
    await app.close();
  });
});
