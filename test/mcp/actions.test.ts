/**
 * list_actions and run_action over /mcp (decisions.md "Agents (MCP)", with actions): the user's
 * own action found and run with its props; a thrown error is the answer's `error`; an unknown
 * key and another user's component are refusals with the REST code.
 */
import type { Client } from "@modelcontextprotocol/client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServer, type TestServer, type TestUser } from "../support/server.js";
import { call, connect, refused, type Connected } from "./helpers.js";

const ACTION = `
export default {
  key: "mcp-shout",
  name: "Shout",
  description: "Upper-cases a text",
  version: "0.0.1",
  type: "action",
  props: { text: { type: "string" }, fail: { type: "boolean", default: false } },
  async run({ $ }) {
    console.log("shouting");
    if (this.fail) throw new Error("asked to fail");
    $.export("$summary", "shouted " + this.text.length + " characters");
    return this.text.toUpperCase();
  },
};`;

describe("actions over MCP", () => {
  let s: TestServer;
  let alice: TestUser;
  let bob: TestUser;
  let conn: Connected;
  let c: Client;

  beforeAll(async () => {
    s = await startServer();
    alice = await s.newUser();
    bob = await s.newUser();
    await alice.client.createComponent({ component_code: ACTION });
    conn = await connect("http", s, alice.key, "2026-07-28");
    c = conn.client;
  });
  afterAll(async () => {
    await conn?.close();
    await s?.stop();
  });

  it("list_actions finds the user's own action with its props", async () => {
    const found = await call<{ actions: Array<{ key: string; props: Array<{ name: string }> }>; total_count: number }>(c, "list_actions", { q: "shout" });
    expect(found.actions.map((a) => a.key)).toEqual(["mcp-shout"]);
    expect(found.actions[0]!.props.map((p) => p.name)).toEqual(["text", "fail"]);
  });

  it("run_action runs it: ret, summary, logs; a thrown error is the answer's error", async () => {
    const ok = await call<{ ret: unknown; summary: string; logs: Array<{ message: string }>; error: unknown }>(c, "run_action", {
      key: "mcp-shout",
      configured_props: { text: "hello" },
    });
    expect(ok).toMatchObject({ ret: "HELLO", summary: "shouted 5 characters", error: null });
    expect(ok.logs.map((l) => l.message)).toContain("shouting");
    const failed = await call<{ error: { message: string } }>(c, "run_action", { key: "mcp-shout", configured_props: { text: "x", fail: true } });
    expect(failed.error.message).toContain("asked to fail");
  });

  it("an unknown key, bad props and another user's action are refusals with the REST code", async () => {
    expect((await refused(c, "run_action", { key: "no-such-thing" })).code).toBe("not_found");
    expect((await refused(c, "run_action", { key: "mcp-shout", configured_props: { text: "x", nope: 1 } })).code).toBe("validation_failed");
    const theirs = await connect("http", s, bob.key, "2026-07-28");
    try {
      expect((await refused(theirs.client, "run_action", { key: "mcp-shout", configured_props: { text: "x" } })).code).toBe("not_found");
    } finally {
      await theirs.close();
    }
  });
});
