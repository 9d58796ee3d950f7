/**
 * Workflow steps by action: `{name, action, props}` with `{{ steps.<path> }}` props, the step's
 * result and exports seen by the next step, its error on `$errors`, and its accounts recorded as
 * the workflow's uses (used_by, 409 account_in_use, gone with the workflow). The action is the
 * account's own component here (the vendor's run in vendor-actions.test.ts).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { post, step, waitForList, workflowErrors, workflowEvents } from "../delivery/helpers.js";
import { hit } from "../runtime/helpers.js";
import { testDatabases } from "../support/databases.js";
import { startServer, type TestServer, type TestUser } from "../support/server.js";

const GREET = `
export default {
  key: "greeter-greet",
  name: "Greet",
  version: "0.0.1",
  type: "action",
  props: {
    greeter: { type: "app", app: "greeter", methods: { sign() { return this.$auth.signature; } } },
    name: { type: "string" },
    times: { type: "integer", default: 1 },
    line: { type: "string", optional: true },
  },
  async run({ steps, $ }) {
    if (this.name === "boom") throw new Error("no greeting for " + this.greeter.sign());
    $.export("$summary", "greeted " + this.name);
    $.export("seen_trigger", steps.trigger.event.body.name === this.name);
    return { greeting: "hello " + this.name, times: this.times, line: this.line ?? null, sig: this.greeter.sign() };
  },
};`;

describe.each(testDatabases())("action steps on $name", (db) => {
  let s: TestServer;
  let alice: TestUser;
  let bob: TestUser;

  beforeAll(async () => {
    s = await startServer({ db });
    alice = await s.newUser();
    bob = await s.newUser();
    await alice.client.createComponent({ component_code: GREET });
  }, 60_000);
  afterAll(() => s?.stop());

  it("the trigger feeds an action step whose result the next step emits", async () => {
    const account = await alice.client.createAccount({ app: "greeter", auth: { signature: "sig-secret-1" } });
    const wf = await alice.client.createWorkflow({
      name: "greets",
      steps: [
        {
          name: "greet",
          action: "greeter-greet",
          props: {
            greeter: { authProvisionId: account.id },
            name: "{{steps.trigger.event.body.name}}",
            times: "{{ steps.trigger.event.body.n }}",
            line: "Dear {{steps.trigger.event.body.name}}, n={{steps.trigger.event.body.n}} {{ not a path }}",
          },
        },
        { name: "send", code: step("$.send.emit({ ret: steps.greet.$return_value, seen: steps.greet.seen_trigger, summary: steps.greet.$summary });") },
      ],
    });
    const stored = wf.steps[0]!;
    expect(stored).toMatchObject({ name: "greet", action: "greeter-greet", component_id: expect.stringMatching(/^sc_/) });
    expect(stored.code).toMatch(/^\/\/ action greeter-greet/);
    expect((await alice.client.getAccount(account.id)).used_by).toBe(1);

    expect(await post(wf.endpoint_url, { name: "ada", n: 3 })).toBe(200);
    const got = await waitForList(workflowEvents(alice.client, wf.id), 1);
    expect(got[0]!.event).toEqual({
      raw_event: {
        ret: { greeting: "hello ada", times: 3, line: "Dear ada, n=3 {{ not a path }}", sig: "sig-secret-1" },
        seen: true,
        summary: "greeted ada",
      },
    });

    // The account cannot go while the step uses it; it can once the workflow is gone.
    const refused = await hit(`${s.baseUrl}/accounts/${account.id}`, { method: "DELETE", headers: { authorization: `Bearer ${alice.key}` } });
    expect(refused.status).toBe(409);
    expect(refused.json.code).toBe("account_in_use");
    await alice.client.deleteWorkflow(wf.id);
    expect((await alice.client.getAccount(account.id)).used_by).toBe(0);
    await alice.client.deleteAccount(account.id);
  });

  it("an action step's error goes to $errors with its step id, credentials hidden; inline credentials become an account", async () => {
    const wf = await alice.client.createWorkflow({
      name: "fails",
      steps: [{ name: "greet", action: "greeter-greet", props: { greeter: { $auth: { signature: "sig-secret-2" } }, name: "{{steps.trigger.event.body.name}}" } }],
    });
    const ref = wf.steps[0]!.props!.greeter as { authProvisionId: string };
    expect(ref.authProvisionId).toMatch(/^apn_/);
    expect((await alice.client.getAccount(ref.authProvisionId)).used_by).toBe(1);
    await post(wf.endpoint_url, { name: "boom" });
    const errors = await waitForList(workflowErrors(alice.client, wf.id), 1);
    const e = errors[0]!.event as { error: { cellId: string; message: string } };
    expect(e.error).toMatchObject({ cellId: wf.steps[0]!.id, message: "no greeting for ****" });
  });

  it("refuses bad action steps with a 400 naming the step; another user's account or action is refused", async () => {
    const bad = async (u: TestUser, steps: unknown[]) => {
      const r = await hit(`${s.baseUrl}/workflows`, { body: { name: "bad", steps }, headers: { authorization: `Bearer ${u.key}` } });
      return { status: r.status, code: r.json.code, error: r.json.error };
    };
    expect(await bad(alice, [{ name: "a", action: "no-such-action" }])).toMatchObject({ status: 400 });
    expect(await bad(alice, [{ name: "a", action: "greeter-greet", props: { nope: 1 } }])).toMatchObject({ status: 400, error: expect.stringMatching(/steps\.a\.props\.nope/) });
    expect(await bad(alice, [{ name: "a", action: "greeter-greet", props: {} }])).toMatchObject({ status: 400, error: expect.stringMatching(/steps\.a\.props\.name/) });
    expect(await bad(alice, [{ name: "a", code: "export default {}", props: { x: 1 } }])).toMatchObject({ status: 400 });
    expect(await bad(bob, [{ name: "a", action: "greeter-greet", props: { name: "x" } }])).toMatchObject({ status: 400 });
    const account = await alice.client.createAccount({ app: "greeter", auth: { signature: "x" } });
    await alice.client.createComponent({ component_code: GREET.replace("greeter-greet", "greeter-greet") });
    const theirs = await bob.client.createComponent({ component_code: GREET });
    expect(await bad(bob, [{ name: "a", action: theirs.id, props: { name: "x", greeter: { authProvisionId: account.id } } }])).toMatchObject({ status: 404 });
  });
});
