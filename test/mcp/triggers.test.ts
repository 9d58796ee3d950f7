/**
 * run_workflow and next_schedule_ticks over /mcp and stdio (decisions.md "Workflow triggers"):
 * Run now makes a MANUAL run with the event given; the next ticks come in time order with their
 * local times; another user's workflow is a refusal with REST's code; update_workflow sets
 * schedules and a token that no result carries back.
 */
import type { Client } from "@modelcontextprotocol/client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Run, ScheduleTick } from "../../shared/resources/index.js";
import { step } from "../delivery/helpers.js";
import { startServer, type TestServer, type TestUser } from "../support/server.js";
import { until } from "../workflows/helpers.js";
import { call, connect, refused, type Connected, type Via } from "./helpers.js";

const TOKEN = "mcp-endpoint-token-5d1e9a";

describe.each<Via>(["http", "stdio"])("workflow triggers over MCP (%s)", (via) => {
  let s: TestServer;
  let alice: TestUser;
  let bob: TestUser;
  let conn: Connected;
  let c: Client;

  beforeAll(async () => {
    s = await startServer();
    alice = await s.newUser();
    bob = await s.newUser();
    conn = await connect(via, s, alice.key, "2026-07-28");
    c = conn.client;
  }, 60_000);
  afterAll(async () => {
    await conn?.close();
    await s?.stop();
  });

  it("run_workflow starts a MANUAL run of the event; another user's workflow is not_found", async () => {
    const wf = await alice.client.createWorkflow({
      name: "mcp manual",
      steps: [{ name: "s", code: step("return steps.trigger.event.n * 2;") }],
    });
    const { run } = await call<{ run: Run }>(c, "run_workflow", { id: wf.name, event: { n: 21 } });
    expect(run.trigger).toEqual({ type: "MANUAL" });
    const done = await until("the run to end", async () => {
      const r = await alice.client.getWorkflowRun(wf.id, run.id);
      return r.status === "success" ? r : undefined;
    });
    expect(done.steps[0]!.return_value).toBe(42);
    const theirs = await bob.client.createWorkflow({
      name: "bob's",
      steps: [{ name: "s", code: step("return 1;") }],
    });
    expect((await refused(c, "run_workflow", { id: theirs.id })).code).toBe("not_found");
  });

  it("update_workflow sets schedules and a token; next_schedule_ticks lists the ticks; no result holds the token", async () => {
    const wf = await alice.client.createWorkflow({
      name: "mcp ticks",
      steps: [{ name: "s", code: step("return 1;") }],
      active: false,
    });
    const raw = JSON.stringify(
      await c.callTool({
        name: "update_workflow",
        arguments: {
          id: wf.id,
          schedules: [{ cron: "0 9 * * *", timezone: "Europe/Paris" }],
          http_auth: { type: "bearer", token: TOKEN },
        },
      }),
    );
    expect(raw).not.toContain(TOKEN);
    expect(raw).toContain("token_set");
    const { ticks } = await call<{ ticks: ScheduleTick[] }>(c, "next_schedule_ticks", {
      id: wf.id,
      count: 3,
    });
    expect(ticks).toHaveLength(3);
    for (const t of ticks)
      expect(t).toMatchObject({ schedule: 0, timezone: "Europe/Paris", local: { time: "09:00:00" } });
    expect(ticks[1]!.at_ms - ticks[0]!.at_ms).toBeGreaterThanOrEqual(23 * 3600_000);
    expect(JSON.stringify(await c.callTool({ name: "list_workflows", arguments: {} }))).not.toContain(TOKEN);
  });
});
