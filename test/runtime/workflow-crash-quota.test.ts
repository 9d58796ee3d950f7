/**
 * A workflow run whose sandbox worker dies is retried by the queue (a platform failure), but the
 * compute it used until then counts against its owner's quota, as a source run's does: otherwise
 * a workflow able to end its worker would get every retry's compute for free.
 */
import fs from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServer, type TestServer, type TestUser } from "../support/server.js";
import { hit } from "./helpers.js";

/** Sandbox workers this test process started (its children running worker.cjs), with their CPU ticks. */
function ownWorkers(): Array<{ pid: number; ticks: number }> {
  const found: Array<{ pid: number; ticks: number }> = [];
  for (const entry of fs.readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${entry}/stat`, "utf8");
      // Fields after the command's closing parenthesis: state, parent's pid, ..., utime, stime.
      const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      if (Number(fields[1]) !== process.pid) continue;
      if (!fs.readFileSync(`/proc/${entry}/cmdline`, "utf8").includes("worker.cjs")) continue;
      found.push({ pid: Number(entry), ticks: Number(fields[11]) + Number(fields[12]) });
    } catch {
      // gone meanwhile
    }
  }
  return found;
}

const until = async <T>(get: () => Promise<T> | T, ok: (v: T) => boolean, withinMs: number): Promise<T> => {
  const deadline = Date.now() + withinMs;
  for (;;) {
    const v = await get();
    if (ok(v) || Date.now() > deadline) return v;
    await new Promise((r) => setTimeout(r, 100));
  }
};

describe.skipIf(process.platform !== "linux")("a workflow run whose worker dies", () => {
  let s: TestServer;
  let alice: TestUser;

  beforeAll(async () => {
    s = await startServer({ env: { HEADWATER_SANDBOX_ISOLATION: "process", HEADWATER_INVOCATION_TIMEOUT_MS: "60000" } });
    alice = await s.newUser();
  });
  afterAll(async () => {
    await s?.stop();
  });

  it("counts the compute it used against the owner's quota, though its job is retried", { timeout: 90_000 }, async () => {
    const wf = await alice.client.createWorkflow({ name: "spins", steps: [{ code: "export default { run() { for (;;) {} } }" }] });
    expect((await hit(wf.endpoint_url as string, { body: {} })).status).toBe(200);
    // The step spins in a worker: end that worker from outside once it has used some CPU
    // (a second and a half: no worker uses that much to start).
    const spinning = await until(() => ownWorkers().filter((w) => w.ticks >= 150), (w) => w.length > 0, 30_000);
    expect(spinning.length).toBeGreaterThan(0);
    for (const { pid } of spinning) process.kill(pid, "SIGKILL");
    const me = await until(() => alice.client.getMe(), (m) => (m.daily_invocations_used ?? 0) >= 1, 30_000);
    expect(me.daily_invocations_used).toBeGreaterThanOrEqual(1);
    expect(me.daily_compute_time_used).toBeGreaterThanOrEqual(1000);
  });
});
