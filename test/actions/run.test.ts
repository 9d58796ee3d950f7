/**
 * POST /actions/run with the account's own code and components (no vendor package): what a run
 * gives back ($.export, $summary, ret, logs, a thrown error as a result), the props it reads,
 * accounts and inline credentials (hidden from the output), and the refusals (400, 404, 429).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { hit } from "../runtime/helpers.js";
import { startServer, type TestServer, type TestUser } from "../support/server.js";

const ACTION = `
export default {
  key: "mine-echo",
  name: "Echo",
  description: "Says what it was given",
  version: "0.0.1",
  type: "action",
  props: {
    mine: { type: "app", app: "mine", methods: { token() { return this.$auth.token; } } },
    text: { type: "string", label: "Text" },
    count: { type: "integer", min: 1, max: 5, default: 1 },
    tags: { type: "string[]", optional: true },
    query: { type: "sql", optional: true },
    config: { type: "object", optional: true },
    note: { type: "alert", alertType: "info", content: "read me" },
    fail: { type: "boolean", default: false },
  },
  async run({ $ }) {
    console.log("token is", this.mine.token());
    if (this.fail) throw new TypeError("asked to fail with " + this.mine.token());
    $.export("seen", { tags: this.tags ?? null, query: this.query ?? null, config: this.config ?? null });
    $.export("$summary", "echoed " + this.count + " times");
    return Array(this.count).fill(this.text);
  },
};`;

describe("POST /actions/run", () => {
  let s: TestServer;
  let alice: TestUser;
  let bob: TestUser;
  const run = (u: TestUser, body: unknown) =>
    hit(`${s.baseUrl}/actions/run`, { body, headers: { authorization: `Bearer ${u.key}` } });

  beforeAll(async () => {
    s = await startServer();
    alice = await s.newUser();
    bob = await s.newUser();
  }, 60_000);
  afterAll(() => s?.stop());

  it("runs code with $.export, $summary, a return value and logs; props read as the action expects", async () => {
    const r = await alice.client.runAction({
      component_code: ACTION,
      configured_props: { mine: { $auth: { token: "sekrit-token" } }, text: 42, count: "2", tags: "one", query: "SELECT 1", config: '{"a":1}' },
    });
    expect(r).toMatchObject({
      ret: ["42", "42"],
      exports: { seen: { tags: ["one"], query: { query: "SELECT 1", params: [] }, config: '{"a":1}' } },
      summary: "echoed 2 times",
      error: null,
    });
    expect(r.duration_ms).toBeGreaterThanOrEqual(0);
    // The inline credential was used, and is hidden from the output.
    expect(r.logs).toEqual([{ level: "log", message: "token is ****" }]);
  });

  it("a thrown error is a result (200) with its logs, credentials hidden", async () => {
    const r = await alice.client.runAction({
      component_code: ACTION,
      configured_props: { mine: { $auth: { token: "sekrit-token" } }, text: "x", fail: true },
    });
    expect(r.error).toEqual({ name: "TypeError", message: "asked to fail with ****" });
    expect(r.ret).toBeNull();
    expect(r.logs.map((l) => l.message)).toEqual(["token is ****"]);
  });

  it("an account by authProvisionId; another user's account is a 404", async () => {
    const account = await alice.client.createAccount({ app: "mine", auth: { token: "from-the-account" } });
    const r = await alice.client.runAction({ component_code: ACTION, configured_props: { mine: { authProvisionId: account.id }, text: "y" } });
    expect(r.logs[0]!.message).toBe("token is ****");
    expect(r.error).toBeNull();
    const other = await run(bob, { component_code: ACTION, configured_props: { mine: { authProvisionId: account.id }, text: "y" } });
    expect(other.status).toBe(404);
    expect(other.json.code).toBe("not_found");
    // A run stores nothing: the account is used by nothing.
    expect((await alice.client.getAccount(account.id)).used_by).toBe(0);
  });

  it("$.flow.exit ends the run without an error; $.respond and $.send.emit are refused clearly", async () => {
    const exit = await alice.client.runAction({
      component_code: `export default { type: "action", key: "x-exit", async run({ $ }) { $.export("before", 1); $.flow.exit("nothing to do"); return 2; } }`,
    });
    expect(exit).toMatchObject({ exit: "nothing to do", error: null, exports: { before: 1 }, ret: null });
    const respond = await alice.client.runAction({
      component_code: `export default { type: "action", async run({ $ }) { await $.respond({ status: 200 }); } }`,
    });
    expect(respond.error?.message).toMatch(/\$\.respond answers a workflow.s HTTP caller/);
    const emit = await alice.client.runAction({ component_code: `export default { type: "action", async run({ $ }) { $.send.emit({}); } }` });
    expect(emit.error?.message).toMatch(/workflow steps only/);
  });

  it("by key and by component id: the account's own action; another user's component is a 404", async () => {
    const c = await alice.client.createComponent({ component_code: ACTION });
    const byKey = await alice.client.runAction({ key: "mine-echo", configured_props: { text: "k" } });
    expect(byKey.ret).toEqual(["k"]);
    const byId = await alice.client.runAction({ component_id: c.id, configured_props: { text: "i" } });
    expect(byId.ret).toEqual(["i"]);
    expect((await run(bob, { component_id: c.id, configured_props: { text: "i" } })).status).toBe(404);
    expect((await run(bob, { key: "mine-echo", configured_props: { text: "i" } })).status).toBe(404);
    const listed = await alice.client.listActions();
    expect(listed.map((a) => a.key)).toEqual(["mine-echo"]);
    expect(listed[0]!.props.find((p) => p.name === "text")).toEqual({ name: "text", type: "string", label: "Text" });
    expect((await alice.client.getAction("mine-echo")).component_id).toBe(c.id);
    expect(await bob.client.listActions()).toEqual([]);
  });

  it("bad input is a 4xx with a code", async () => {
    const cases: Array<[unknown, number, string]> = [
      [{ key: "no-such-action" }, 404, "not_found"],
      [{}, 400, "validation_failed"],
      [{ key: "a-b", component_code: "x" }, 400, "validation_failed"],
      [{ component_code: ACTION, configured_props: { text: "x", count: 9 } }, 400, "validation_failed"],
      [{ component_code: ACTION, configured_props: { text: "x", nope: 1 } }, 400, "validation_failed"],
      [{ component_code: ACTION, configured_props: {} }, 400, "validation_failed"],
      [{ component_code: ACTION, configured_props: { text: "x", note: "a value" } }, 400, "validation_failed"],
      [{ component_code: "export default {" }, 400, "invalid_component"],
      [{ component_code: ACTION, configured_props: { text: "x", mine: { authProvisionId: "apn_nope" } } }, 404, "not_found"],
    ];
    for (const [body, status, code] of cases) {
      const r = await run(alice, body);
      expect({ body, status: r.status, code: r.json.code }).toEqual({ body, status, code });
    }
    expect((await hit(`${s.baseUrl}/actions/no-such-action`, { headers: { authorization: `Bearer ${alice.key}` } })).status).toBe(404);
  });

  it("counts as an invocation: over the daily quota it is a 429", async () => {
    const q = await startServer({ env: { HEADWATER_DAILY_INVOCATIONS_QUOTA: "1" } });
    try {
      const u = await q.newUser();
      const code = `export default { type: "action", run() { return 1; } }`;
      expect((await u.client.runAction({ component_code: code })).ret).toBe(1);
      const r = await hit(`${q.baseUrl}/actions/run`, { body: { component_code: code }, headers: { authorization: `Bearer ${u.key}` } });
      expect(r.status).toBe(429);
      expect(r.json.code).toBe("quota_exceeded");
    } finally {
      await q.stop();
    }
  });
});
