/**
 * list_env, set_env and delete_env over /mcp and stdio (decisions.md "Workflow triggers,
 * environment variables and data stores"): a secret's value goes in and is never in a result,
 * not even in a run that printed it; a plain value is shown; a missing variable is a refusal with
 * the REST code; a bad name is refused before anything changes.
 */
import type { Client } from "@modelcontextprotocol/client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { step } from "../delivery/helpers.js";
import { startServer, type TestServer, type TestUser } from "../support/server.js";
import { call, connect, refused, type Connected, type Via } from "./helpers.js";

const SECRET = "mcp-secret-41b7e0c2d9";

describe.each<Via>(["http", "stdio"])("environment variables over MCP (%s)", (via) => {
  let s: TestServer;
  let alice: TestUser;
  let conn: Connected;
  let c: Client;

  beforeAll(async () => {
    s = await startServer();
    alice = await s.newUser();
    conn = await connect(via, s, alice.key, "2026-07-28");
    c = conn.client;
  }, 60_000);
  afterAll(async () => {
    await conn?.close();
    await s?.stop();
  });

  /** Every text and structured part of a tool's result, as the agent gets it. */
  const raw = async (name: string, args: Record<string, unknown>) =>
    JSON.stringify(await c.callTool({ name, arguments: args }));

  it("set_env keeps a secret without ever answering it; list_env shows names, and plain values", async () => {
    const setRaw = await raw("set_env", { name: "OPENAI_KEY", value: SECRET });
    expect(setRaw).not.toContain(SECRET);
    const plain = await call<{ variable: { name: string; secret: boolean; value?: string } }>(c, "set_env", {
      name: "REGION",
      value: "eu-west",
      secret: false,
    });
    expect(plain.variable).toMatchObject({ name: "REGION", secret: false, value: "eu-west" });
    const listed = await call<{
      variables: Array<{ name: string; secret: boolean; value?: string }>;
      total_count: number;
    }>(c, "list_env");
    expect(listed.total_count).toBe(2);
    expect(listed.variables.map((v) => [v.name, v.secret, v.value])).toEqual([
      ["OPENAI_KEY", true, undefined],
      ["REGION", false, "eu-west"],
    ]);
    expect(await raw("list_env", {})).not.toContain(SECRET);
    // The REST view agrees.
    expect((await alice.client.listMyEnvVars()).map((v) => v.name)).toEqual(["OPENAI_KEY", "REGION"]);
  });

  it("a run that prints the secret shows **** in the tool's result", async () => {
    const wf = await alice.client.createWorkflow({
      name: "prints",
      steps: [
        {
          name: "p",
          code: step(`console.log("key:", process.env.OPENAI_KEY); return process.env.OPENAI_KEY;`),
        },
      ],
    });
    const text = await raw("test_workflow", { id: wf.id });
    expect(text).not.toContain(SECRET);
    expect(text).toContain("key: ****");
  });

  it("delete_env deletes; a missing one is not_found; a bad or reserved name changes nothing", async () => {
    expect(await call(c, "delete_env", { name: "REGION" })).toEqual({ deleted: true, name: "REGION" });
    expect((await refused(c, "delete_env", { name: "REGION" })).code).toBe("not_found");
    expect((await refused(c, "set_env", { name: "HEADWATER_X", value: "v" })).error).toMatch(/reserved/);
    expect((await refused(c, "set_env", { name: "1BAD", value: "v" })).code).toBe("invalid_input");
    expect((await alice.client.listMyEnvVars()).map((v) => v.name)).toEqual(["OPENAI_KEY"]);
  });
});
