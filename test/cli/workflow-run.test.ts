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
});
