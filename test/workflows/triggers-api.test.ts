/**
 * A workflow's own triggers over the API (decisions.md "Workflow triggers, environment variables
 * and data stores"), on SQLite and PostgreSQL: schedules checked (400 naming the schedule, nothing
 * changed), their next ticks listed, an interval ticking into SCHEDULE runs, an inactive workflow
 * not ticking; Run now making a MANUAL run; and an endpoint's bearer token: 401 without it (nothing
 * stored or run), its runs without the Authorization header, the token in no answer.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Run } from "../../shared/resources/index.js";
import { sleep, step } from "../delivery/helpers.js";
import { testDatabases } from "../support/databases.js";
import { expectApiError } from "../support/fixtures.js";
import { startServer, type TestServer, type TestUser } from "../support/server.js";
import { until } from "./helpers.js";

const TOKEN = "tok_9f8e7d6c5b4a39281706";
const echo = [{ name: "echo", code: step("return steps.trigger.event;") }];

async function ended(user: TestUser, wf: string, run: string): Promise<Run> {
  return until(`run ${run} to end`, async () => {
    const r = await user.client.getWorkflowRun(wf, run);
    return r.status === "queued" || r.status === "running" ? undefined : r;
  });
}

describe.each(testDatabases())("workflow triggers on $name", (db) => {
  let srv: TestServer;
  let alice: TestUser;
  let bob: TestUser;

  beforeAll(async () => {
    srv = await startServer({ db });
    alice = await srv.newUser();
    bob = await srv.newUser();
  }, 60_000);
  afterAll(() => srv?.stop());

  it("refuses a bad schedule or token with details naming it, and changes nothing", async () => {
    const wf = await alice.client.createWorkflow({ name: "checked", steps: echo });
    const bad: Array<[unknown, string]> = [
      [[{ interval_seconds: 60 }, { cron: "61 * * * *" }], "schedules.1.cron"],
      [[{ cron: "0 9 * *" }], "schedules.0"],
      [[{ cron: "0 9 * * *", timezone: "Mars/Olympus" }], "schedules.0"],
      [[{ interval_seconds: 0 }], "schedules.0"],
      [Array.from({ length: 11 }, () => ({ interval_seconds: 60 })), "schedules"],
    ];
    for (const [schedules, path] of bad) {
      const e = await expectApiError(alice.client.updateWorkflow(wf.id, { schedules } as never), 400);
      expect(JSON.stringify(e.details), JSON.stringify(schedules)).toContain(path);
    }
    for (const http_auth of [
      { type: "bearer", token: "short" },
      { type: "bearer", token: "x".repeat(20) + " y" },
      { type: "basic" },
    ])
      await expectApiError(alice.client.updateWorkflow(wf.id, { http_auth } as never), 400);
    // A bearer without a token keeps the one there is: there is none yet.
    const e = await expectApiError(
      alice.client.updateWorkflow(wf.id, { http_auth: { type: "bearer" } }),
      400,
    );
    expect(JSON.stringify(e.details)).toContain("http_auth.token");
    const after = await alice.client.getWorkflow(wf.id);
    expect(after).toMatchObject({ version: 1, schedules: [], http_auth: { type: "none" } });
  });

  it("lists the next ticks of every schedule in time order, in their zones", async () => {
    const wf = await alice.client.createWorkflow({
      name: "ticks",
      steps: echo,
      active: false,
      schedules: [{ cron: "0 9 * * *", timezone: "Europe/Paris" }, { cron: "30 8 * * *" }],
    });
    expect(wf.schedules).toEqual([
      { cron: "0 9 * * *", timezone: "Europe/Paris" },
      { cron: "30 8 * * *", timezone: "UTC" },
    ]);
    const ticks = await alice.client.nextScheduleTicks(wf.id, 6);
    expect(ticks).toHaveLength(6);
    expect(ticks.map((t) => t.at_ms)).toEqual([...ticks.map((t) => t.at_ms)].sort((a, b) => a - b));
    for (const t of ticks) {
      expect(t.at).toBe(new Date(t.at_ms).toISOString());
      expect(t.local.time).toBe(t.schedule === 0 ? "09:00:00" : "08:30:00");
      expect(t.timezone).toBe(t.schedule === 0 ? "Europe/Paris" : "UTC");
    }
    expect(new Set(ticks.map((t) => t.schedule))).toEqual(new Set([0, 1]));
    expect(await alice.client.nextScheduleTicks(wf.id)).toHaveLength(5);
    await expectApiError(alice.client.nextScheduleTicks(wf.id, 51), 400);
    await expectApiError(bob.client.nextScheduleTicks(wf.id), 404);
  });

  it("ticks an interval schedule into SCHEDULE runs with the tick's event; inactive, it does not tick", async () => {
    const wf = await alice.client.createWorkflow({
      name: "every second",
      steps: echo,
      schedules: [{ interval_seconds: 1 }],
    });
    const runs = await until(
      "three scheduled runs",
      async () => {
        const page = await alice.client.listWorkflowRuns(wf.id, { expand: "event" });
        const done = page.data.filter((r) => r.status === "success");
        return done.length >= 3 ? done : undefined;
      },
      20_000,
    );
    for (const r of runs) {
      expect(r.trigger).toEqual({ type: "SCHEDULE", schedule: 0 });
      const event = r.event as Record<string, unknown>;
      expect(event).toMatchObject({ timezone: "UTC", interval_seconds: 1, local: { offset: "+00:00" } });
      expect(event.timestamp).toBe(Math.floor((event.scheduled_at_ms as number) / 1000));
      expect(r.steps[0]!.return_value).toEqual(event);
    }
    // Ticks one second apart, each its own.
    const times = runs.map((r) => (r.event as { scheduled_at_ms: number }).scheduled_at_ms);
    expect(new Set(times).size).toBe(times.length);

    await alice.client.updateWorkflow(wf.id, { active: false });
    await sleep(300);
    const before = (await alice.client.listWorkflowRuns(wf.id, { limit: 100 })).page_info.total_count;
    await sleep(2500);
    expect((await alice.client.listWorkflowRuns(wf.id, { limit: 100 })).page_info.total_count).toBe(before);
  });

  it("replaces the schedules with a new version's, and a draft deploys them", async () => {
    const wf = await alice.client.createWorkflow({ name: "versions", steps: echo, active: false });
    const v2 = await alice.client.updateWorkflow(wf.id, {
      schedules: [{ interval_seconds: 3600 }],
      base_version: 1,
    });
    expect(v2).toMatchObject({ version: 2, schedules: [{ interval_seconds: 3600 }] });
    await expectApiError(
      alice.client.updateWorkflow(wf.id, { schedules: [], base_version: 1 }),
      409,
      "version_conflict",
    );
    const draft = await alice.client.updateWorkflowDraft(wf.id, {
      schedules: [{ cron: "*/5 * * * *", timezone: "Asia/Tokyo" }],
    });
    expect(draft.workflow.schedules).toEqual([{ cron: "*/5 * * * *", timezone: "Asia/Tokyo" }]);
    const deployed = await alice.client.deployWorkflowDraft(wf.id);
    expect(deployed).toMatchObject({
      version: 3,
      schedules: [{ cron: "*/5 * * * *", timezone: "Asia/Tokyo" }],
    });
    expect((await alice.client.getWorkflowVersion(wf.id, 2)).workflow.schedules).toEqual([
      { interval_seconds: 3600 },
    ]);
  });

  it("Run now starts a MANUAL production run with the event; another user's workflow is 404", async () => {
    const wf = await alice.client.createWorkflow({ name: "manual", steps: echo });
    const run = await alice.client.runWorkflow(wf.id, { event: { hello: "world" } });
    expect(run.trigger).toEqual({ type: "MANUAL" });
    const done = await ended(alice, wf.id, run.id);
    expect(done).toMatchObject({ status: "success", trigger: { type: "MANUAL" }, event: { hello: "world" } });
    expect(done.steps[0]!.return_value).toEqual({ hello: "world" });
    // No event: {}.
    const bare = await alice.client.runWorkflow(wf.id);
    expect((await ended(alice, wf.id, bare.id)).event).toEqual({});
    const listed = await alice.client.listWorkflowRuns(wf.id);
    expect(listed.data.map((r) => r.id)).toEqual(expect.arrayContaining([run.id, bare.id]));

    await expectApiError(bob.client.runWorkflow(wf.id, { event: {} }), 404);
    await expectApiError(alice.client.runWorkflow("p_doesnotexist"), 404);
    await alice.client.updateWorkflow(wf.id, { active: false });
    await expectApiError(alice.client.runWorkflow(wf.id), 409, "workflow_inactive");
  });

  it("an endpoint with a bearer token: 401 without it or with another (nothing stored or run), runs with it", async () => {
    const wf = await alice.client.createWorkflow({
      name: "guarded",
      steps: echo,
      http_auth: { type: "bearer", token: TOKEN },
    });
    expect(wf.http_auth).toEqual({ type: "bearer", token_set: true });
    const post = (headers: Record<string, string>) =>
      fetch(wf.endpoint_url, {
        method: "POST",
        headers: { "content-type": "application/json", ...headers },
        body: '{"n":1}',
      });
    const refused: Array<Record<string, string>> = [
      {},
      { authorization: "Bearer wrong-token-0123456789" },
      { authorization: TOKEN },
      { authorization: `Basic ${TOKEN}` },
    ];
    for (const headers of refused) {
      const res = await post(headers);
      expect(res.status).toBe(401);
      expect(await res.json()).toEqual({ error: expect.any(String), code: "unauthorized" });
    }
    const get = await fetch(`${wf.endpoint_url}/sub?x=1`);
    expect(get.status).toBe(401);
    await sleep(300);
    expect((await alice.client.listWorkflowRuns(wf.id)).data).toEqual([]);

    const ok = await post({ authorization: `Bearer ${TOKEN}`, "x-other": "kept" });
    expect(ok.status).toBe(200);
    const runId = ok.headers.get("x-headwater-run-id")!;
    const run = await ended(alice, wf.id, runId);
    const headers = (run.event as { headers: Record<string, string> }).headers;
    expect(headers["x-other"]).toBe("kept");
    expect(headers).not.toHaveProperty("authorization");
    expect(JSON.stringify(run)).not.toContain(TOKEN);
  });

  it("never answers the token; omitting http_auth keeps it, a new one replaces it, none removes it", async () => {
    const wf = await alice.client.createWorkflow({
      name: "write-only",
      steps: echo,
      http_auth: { type: "bearer", token: TOKEN },
    });
    const rename = await alice.client.updateWorkflow(wf.id, { name: "renamed" });
    expect(rename.http_auth).toEqual({ type: "bearer", token_set: true });
    // `{type: "bearer"}` alone keeps it: no new version.
    expect((await alice.client.updateWorkflow(wf.id, { http_auth: { type: "bearer" } })).version).toBe(2);
    await alice.client.updateWorkflowDraft(wf.id, { name: "drafted" });
    const rotated = "rotated_token_abcdefghijkl";
    const v3 = await alice.client.updateWorkflow(wf.id, { http_auth: { type: "bearer", token: rotated } });
    expect(v3.version).toBe(3);
    const post = (token: string) =>
      fetch(wf.endpoint_url, {
        method: "POST",
        headers: { "content-type": "application/json", authorization: `Bearer ${token}` },
        body: "{}",
      });
    expect((await post(TOKEN)).status).toBe(401);
    expect((await post(rotated)).status).toBe(200);

    const key = { authorization: `Bearer ${alice.key}` };
    const answers = await Promise.all(
      [
        `/workflows/${wf.id}`,
        `/workflows/${wf.id}/versions`,
        `/workflows/${wf.id}/versions/1`,
        `/workflows/${wf.id}/versions/3`,
        `/workflows/${wf.id}/draft`,
        `/users/me/workflows`,
      ].map(async (p) => (await fetch(`${srv.baseUrl}${p}`, { headers: key })).text()),
    );
    for (const text of answers) {
      expect(text).not.toContain(TOKEN);
      expect(text).not.toContain(rotated);
      expect(text).not.toContain("token_sha256");
    }
    const none = await alice.client.updateWorkflow(wf.id, { http_auth: { type: "none" } });
    expect(none.http_auth).toEqual({ type: "none" });
    expect((await post("anything-at-all-1234")).status).toBe(200);
  });
});
