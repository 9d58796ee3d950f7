/**
 * `headwater workflows run` through the real binary against a real server (decisions.md
 * "Workflow triggers": Run now): the run's id and status printed, its event from a file or stdin,
 * `--follow` printing the ended run and exiting 1 when it failed; a bad event file is a usage
 * error that runs nothing; an inactive workflow is refused.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { step } from "../delivery/helpers.js";
import { startServer, type TestServer, type TestUser } from "../support/server.js";
import { until } from "../workflows/helpers.js";
import { flags, runCli } from "./helpers.js";

describe("headwater workflows run", { timeout: 120_000 }, () => {
  let server: TestServer;
  let user: TestUser;
  let dir: string;
  const hw = (input: string | undefined, ...args: string[]) =>
    runCli([...flags(server.baseUrl, user.key), ...args], input === undefined ? {} : { input });
  const push = (folder: string, env: Record<string, string>) =>
    runCli([...flags(server.baseUrl, user.key), "workflows", "push", folder], { env });

  beforeAll(async () => {
    server = await startServer();
    user = await server.newUser();
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "hw-run-"));
  });
  afterAll(async () => {
    fs.rmSync(dir, { recursive: true, force: true });
    await server?.stop();
  });

  it("runs the workflow now with the event of a file, and prints the run's id and status", async () => {
    const wf = await user.client.createWorkflow({
      name: "doubler",
      steps: [
        {
          name: "d",
          code: step(
            "if (steps.trigger.event.fail) throw new Error('asked to fail'); return (steps.trigger.event.n ?? 0) * 2;",
          ),
        },
      ],
    });
    const file = path.join(dir, "event.json");
    fs.writeFileSync(file, '{"n": 21}');
    const r = await hw(undefined, "workflows", "run", "doubler", "--event", file);
    expect(r.code, r.stderr).toBe(0);
    const m = /^(r_[A-Za-z0-9]+) (queued|running|success)\n$/.exec(r.stdout);
    expect(m, r.stdout).not.toBeNull();
    const run = await until("the run to end", async () => {
      const x = await user.client.getWorkflowRun(wf.id, m![1]!);
      return x.status === "success" ? x : undefined;
    });
    expect(run).toMatchObject({ trigger: { type: "MANUAL" }, event: { n: 21 } });
    expect(run.steps[0]!.return_value).toBe(42);
  });

  it("--follow waits and prints the ended run; a failed run exits 1; stdin is an event too", async () => {
    const ok = await hw('{"n": 5}', "workflows", "run", "doubler", "--event", "-", "--follow");
    expect(ok.code, ok.stderr).toBe(0);
    expect(ok.stdout).toMatch(/success/);
    expect(ok.stdout).toMatch(/MANUAL/);
    expect(ok.stdout).toMatch(/10/);
    const failed = await hw('{"fail": true}', "workflows", "run", "doubler", "--event", "-", "-f");
    expect(failed.code).toBe(1);
    expect(failed.stderr).toMatch(/asked to fail/);
  });

  it("a bad event file runs nothing (exit 2); an inactive workflow is refused (exit 1)", async () => {
    const wf = await user.client.createWorkflow({
      name: "quiet",
      steps: [{ name: "s", code: step("return 1;") }],
    });
    const bad = path.join(dir, "bad.json");
    fs.writeFileSync(bad, "{not json");
    const r = await hw(undefined, "workflows", "run", "quiet", "--event", bad);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/not JSON/);
    expect(
      (await hw(undefined, "workflows", "run", "quiet", "--event", path.join(dir, "missing.json"))).code,
    ).toBe(2);
    expect((await user.client.listWorkflowRuns(wf.id)).data).toEqual([]);
    await user.client.updateWorkflow(wf.id, { active: false });
    const off = await hw(undefined, "workflows", "run", "quiet");
    expect(off.code).toBe(1);
    expect(off.stderr).toMatch(/inactive/);
  });

  it("push sets the endpoint's token from token_env, keeps it when the variable is unset, and rotates it", async () => {
    const folder = path.join(dir, "guarded");
    fs.mkdirSync(folder);
    fs.writeFileSync(path.join(folder, "a.mjs"), step("return 1;"));
    const yaml = (name: string) =>
      fs.writeFileSync(
        path.join(folder, "workflow.yaml"),
        `name: ${name}\nschedules:\n  - cron: "0 9 * * 1-5"\n    timezone: Europe/Paris\nhttp_auth:\n  type: bearer\n  token_env: GUARD_TOKEN\nsteps:\n  - name: a\n    file: a.mjs\n`,
      );
    yaml("guarded");
    const first = "first-token-0123456789";
    const created = await push(folder, { GUARD_TOKEN: first });
    expect(created.code, created.stderr).toBe(0);
    const wf = (await user.client.listMyWorkflows()).data.find((w) => w.name === "guarded")!;
    expect(wf).toMatchObject({
      schedules: [{ cron: "0 9 * * 1-5", timezone: "Europe/Paris" }],
      http_auth: { type: "bearer", token_set: true },
    });
    const send = (token?: string) =>
      fetch(wf.endpoint_url, {
        method: "POST",
        headers: {
          "content-type": "application/json",
          ...(token ? { authorization: `Bearer ${token}` } : {}),
        },
        body: "{}",
      });
    expect((await send()).status).toBe(401);
    expect((await send(first)).status).toBe(200);
    // The file never holds the token.
    expect(fs.readFileSync(path.join(folder, "workflow.yaml"), "utf8")).not.toContain(first);

    /** The pushed folder's workflow.yaml (it now has the workflow's id and version) under another name. */
    const rename = (name: string) => {
      const file = path.join(folder, "workflow.yaml");
      fs.writeFileSync(file, fs.readFileSync(file, "utf8").replace(/^name: .*$/m, `name: ${name}`));
    };
    // Unset: the server's token stays.
    rename("guarded again");
    expect((await push(folder, {})).code).toBe(0);
    expect((await send(first)).status).toBe(200);
    // Set to another: rotated.
    const second = "second-token-9876543210";
    rename("guarded rotated");
    expect((await push(folder, { GUARD_TOKEN: second })).code).toBe(0);
    expect((await send(first)).status).toBe(401);
    expect((await send(second)).status).toBe(200);
  });
});
