/** Sources over HTTP (spec §4 Sources and §3 States, decisions.md). */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Source } from "../../shared/resources/index.js";
import { testDatabases } from "../support/databases.js";
import { serveFiles, type FilesServer } from "../support/files-server.js";
import {
  expectApiError,
  propsComponent,
  rawRequest,
  timerComponent,
  uniqueKey,
} from "../support/fixtures.js";
import { startServer, type TestServer, type TestUser } from "../support/server.js";

describe.each(testDatabases())("sources on $name", (db) => {
  let s: TestServer;
  let alice: TestUser;
  let bob: TestUser;
  let files: FilesServer;

  beforeAll(async () => {
    s = await startServer({
      db,
      env: {
        HEADWATER_PUBLIC_URL: "https://hooks.example.test",
        HEADWATER_SANDBOX_ALLOW_PRIVATE_NETWORK: "true",
      },
    });
    alice = await s.newUser();
    bob = await s.newUser();
    files = await serveFiles({ "/timer.js": timerComponent(uniqueKey("url"), "Url Timer") });
  });
  afterAll(async () => {
    await files?.close();
    await s?.stop();
  });

  const count = async (u: TestUser) => ({
    sources: (await u.client.listMySources()).page_info.total_count,
    components: (await u.client.listMyComponents()).page_info.total_count,
  });

  it("POST /sources/ from component_code: 200, active, defaults applied, timer and http normalised", async () => {
    const src = await alice.client.createSource({
      component_code: propsComponent(),
      configured_props: { url: "https://x.test/feed" },
    });
    expect(Source.parse(src)).toBeTruthy();
    expect(src).toMatchObject({
      id: expect.stringMatching(/^dc_/),
      user_id: alice.user.id,
      component_id: expect.stringMatching(/^sc_/),
      active: true,
      name: "props-source",
      name_slug: "props-source",
    });
    expect(src.configured_props).toEqual({
      url: "https://x.test/feed",
      mode: "fast",
      enabled: true,
      timer: { cron: null, interval_seconds: 900 },
      http: { endpoint_url: `https://hooks.example.test/e/${src.id}` },
    });
    // The component made from the code is saved in the account.
    expect((await alice.client.getComponent(src.component_id)).name).toBe("Props Source");
  });

  it("takes the timer as {intervalSeconds}, {interval_seconds} or {cron}", async () => {
    const c = await alice.client.createComponent({ component_code: timerComponent() });
    const cases: Array<[unknown, unknown]> = [
      [{ intervalSeconds: 30 }, { cron: null, interval_seconds: 30 }],
      [{ interval_seconds: 45 }, { cron: null, interval_seconds: 45 }],
      [{ cron: "*/5 * * * *" }, { cron: "*/5 * * * *", interval_seconds: null }],
    ];
    for (const [given, stored] of cases) {
      const src = await alice.client.createSource({ component_id: c.id, configured_props: { timer: given } });
      expect(src.configured_props.timer).toEqual(stored);
    }
  });

  it("validates configured_props against the props (400 with details), and saves nothing", async () => {
    const before = await count(alice);
    const code = propsComponent();
    const bad: Array<[Record<string, unknown>, string]> = [
      [{}, "configured_props.url"],
      [{ url: 5 }, "configured_props.url"],
      [{ url: "u", mode: "medium" }, "configured_props.mode"],
      [{ url: "u", count: 0 }, "configured_props.count"],
      [{ url: "u", count: 2.5 }, "configured_props.count"],
      [{ url: "u", enabled: "yes" }, "configured_props.enabled"],
      [{ url: "u", tags: ["a", 1] }, "configured_props.tags"],
      [{ url: "u", timer: { intervalSeconds: 0 } }, "configured_props.timer"],
      [{ url: "u", timer: { cron: "not a cron" } }, "configured_props.timer"],
      [{ url: "u", timer: {} }, "configured_props.timer"],
      [{ url: "u", db: {} }, "configured_props.db"],
      [{ url: "u", nonsense: 1 }, "configured_props.nonsense"],
    ];
    for (const [props, path] of bad) {
      const e = await expectApiError(
        alice.client.createSource({ component_code: code, configured_props: props }),
        400,
        "validation_failed",
      );
      expect(
        e.details?.map((d) => d.path),
        JSON.stringify(props),
      ).toContain(path);
    }
    expect(await count(alice)).toEqual(before);
  });

  it("accepts optional props, options given as {label, value}, string arrays and secrets", async () => {
    const src = await alice.client.createSource({
      component_code: propsComponent(),
      configured_props: {
        url: "u",
        mode: "slow",
        count: 10,
        enabled: false,
        tags: ["a", "b"],
        token: "s3cret",
      },
    });
    expect(src.configured_props).toMatchObject({
      mode: "slow",
      count: 10,
      enabled: false,
      tags: ["a", "b"],
      token: "s3cret",
    });
  });

  it("creates a source with an $.interface.apphook prop (the vendor's Slack sources): not configurable, a value for it refused", async () => {
    const code = `export default {
      name: "Apphook Listener",
      props: {
        slack: { type: "app", app: "slack" },
        slackApphook: {
          type: "$.interface.apphook",
          appProp: "slack",
          async eventNames() { return ["message"]; },
        },
        keyword: { type: "string", optional: true },
      },
      async run(event) { this.$emit(event); },
    };`;
    const src = await alice.client.createSource({ component_code: code, configured_props: { keyword: "hi" } });
    expect(src.configured_props).toEqual({ slack: { $auth: {} }, keyword: "hi" });
    const e = await expectApiError(
      alice.client.createSource({ component_code: code, configured_props: { slackApphook: { x: 1 } } }),
      400,
      "validation_failed",
    );
    expect(e.details?.map((d) => d.path)).toEqual(["configured_props.slackApphook"]);
  });

  it("POST /sources/ from component_url and from key (account first, then the registry)", async () => {
    const fromUrl = await alice.client.createSource({ component_url: `${files.url}/timer.js` });
    expect((await alice.client.getComponent(fromUrl.component_id)).component_url).toBe(
      `${files.url}/timer.js`,
    );

    const key = uniqueKey();
    const own = await alice.client.createComponent({ component_code: timerComponent(key, "Mine") });
    const byKey = await alice.client.createSource({ key });
    expect(byKey.component_id).toBe(own.id);

    await alice.client.publishComponent(own.id);
    const fromRegistry = await bob.client.createSource({ key });
    expect(fromRegistry.component_id).toBe(own.id);
    expect(fromRegistry.user_id).toBe(bob.user.id);
    await expectApiError(bob.client.createSource({ key: uniqueKey() }), 404, "not_found");
  });

  it("prefers component_id over component_code over component_url", async () => {
    const c = await alice.client.createComponent({ component_code: timerComponent(uniqueKey(), "By Id") });
    const a = await alice.client.createSource({
      component_id: c.id,
      component_code: timerComponent(uniqueKey(), "By Code"),
      component_url: `${files.url}/timer.js`,
    });
    expect(a.component_id).toBe(c.id);
    const b = await alice.client.createSource({
      component_code: timerComponent(uniqueKey(), "By Code"),
      component_url: `${files.url}/timer.js`,
    });
    expect((await alice.client.getComponent(b.component_id)).name).toBe("By Code");
  });

  it("needs a component reference (400); an unknown or foreign component_id is a 404", async () => {
    await expectApiError(alice.client.createSource({ name: "x" }), 400, "validation_failed");
    const theirs = await bob.client.createComponent({ component_code: timerComponent() });
    await expectApiError(alice.client.createSource({ component_id: theirs.id }), 404, "not_found");
    await expectApiError(alice.client.createSource({ component_id: "sc_nothere" }), 404, "not_found");
  });

  it("bad component code in POST /sources/ is a 400 and creates nothing", async () => {
    const before = await count(alice);
    await expectApiError(
      alice.client.createSource({ component_code: "export default {" }),
      400,
      "invalid_component",
    );
    expect(await count(alice)).toEqual(before);
  });

  it("name defaults to the component's name slug; name_slug is unique in the account", async () => {
    const u = await s.newUser();
    const c = await u.client.createComponent({ component_code: timerComponent(uniqueKey(), "My Feed!") });
    const a = await u.client.createSource({ component_id: c.id });
    const b = await u.client.createSource({ component_id: c.id });
    const named = await u.client.createSource({ component_id: c.id, name: "My Feed" });
    expect([a.name, a.name_slug]).toEqual(["my-feed", "my-feed"]);
    expect([b.name, b.name_slug]).toEqual(["my-feed-2", "my-feed-2"]);
    expect([named.name, named.name_slug]).toEqual(["My Feed", "my-feed-3"]);
    // Another account has its own namespace.
    const other = await s.newUser();
    const oc = await other.client.createComponent({
      component_code: timerComponent(uniqueKey(), "My Feed!"),
    });
    expect((await other.client.createSource({ component_id: oc.id })).name_slug).toBe("my-feed");
  });

  it("concurrent creates get distinct name_slugs (no 5xx)", async () => {
    const u = await s.newUser();
    const c = await u.client.createComponent({ component_code: timerComponent(uniqueKey(), "Racer") });
    const made = await Promise.all(
      Array.from({ length: 8 }, () => u.client.createSource({ component_id: c.id })),
    );
    const slugs = made.map((x) => x.name_slug).sort();
    expect(new Set(slugs).size).toBe(8);
    expect(slugs).toContain("racer");
  });

  it("PUT /sources/{id}: updates every field, active defaults to true", async () => {
    const c = await alice.client.createComponent({ component_code: timerComponent() });
    const src = await alice.client.createSource({ component_id: c.id });
    const off = await alice.client.updateSource(src.id, {
      component_id: c.id,
      active: false,
      configured_props: { timer: { cron: "0 * * * *" } },
    });
    expect(off).toMatchObject({
      id: src.id,
      active: false,
      configured_props: { timer: { cron: "0 * * * *", interval_seconds: null } },
    });
    const on = await alice.client.updateSource(src.id, { component_id: c.id, name: "Renamed Source" });
    expect(on).toMatchObject({ active: true, name: "Renamed Source", name_slug: "renamed-source" });
    // configured_props left out keep their values.
    expect(on.configured_props.timer).toEqual({ cron: "0 * * * *", interval_seconds: null });
    expect(await alice.client.getSource(src.id)).toEqual(on);
  });

  it("PUT can switch the component (new code) and revalidates the props", async () => {
    const src = await alice.client.createSource({ component_code: timerComponent() });
    const moved = await alice.client.updateSource(src.id, {
      component_code: propsComponent(),
      configured_props: { url: "u" },
    });
    expect(moved.component_id).not.toBe(src.component_id);
    expect(moved.configured_props.http).toEqual({ endpoint_url: `https://hooks.example.test/e/${src.id}` });
    await expectApiError(
      alice.client.updateSource(src.id, { component_id: src.component_id, configured_props: { nope: 1 } }),
      400,
    );
    expect((await alice.client.getSource(src.id)).component_id).toBe(moved.component_id);
  });

  it("PUT validates its body: component reference required, active must be boolean", async () => {
    const src = await alice.client.createSource({ component_code: timerComponent() });
    await expectApiError(alice.client.updateSource(src.id, { name: "x" }), 400, "validation_failed");
    const r = await rawRequest(`${s.baseUrl}/sources/${src.id}`, {
      method: "PUT",
      key: alice.key,
      body: JSON.stringify({ component_id: src.component_id, active: "no" }),
    });
    expect(r.status).toBe(400);
    expect((await alice.client.getSource(src.id)).active).toBe(true);
  });

  it("DELETE /sources/{id} is 204, then the source is gone (404)", async () => {
    const src = await alice.client.createSource({ component_code: timerComponent() });
    const res = await fetch(`${s.baseUrl}/sources/${src.id}`, {
      method: "DELETE",
      headers: { Authorization: `Bearer ${alice.key}` },
    });
    expect(res.status).toBe(204);
    expect(await res.text()).toBe("");
    await expectApiError(alice.client.getSource(src.id), 404, "not_found");
    await expectApiError(alice.client.deleteSource(src.id), 404, "not_found");
  });

  it("another user's source is a 404 for GET, PUT and DELETE, and is left unchanged", async () => {
    const src = await alice.client.createSource({ component_code: timerComponent() });
    await expectApiError(bob.client.getSource(src.id), 404, "not_found");
    await expectApiError(
      bob.client.updateSource(src.id, { component_id: src.component_id, active: false }),
      404,
      "not_found",
    );
    await expectApiError(bob.client.deleteSource(src.id), 404, "not_found");
    expect(await alice.client.getSource(src.id)).toEqual(src);
    const bobs = await bob.client.listMySources({ limit: 100 });
    expect(bobs.data.some((x) => x.id === src.id)).toBe(false);
  });

  it("a failing deploy hook is a 400 hook_failed and leaves no source or component behind", async () => {
    const before = await count(alice);
    const code = `module.exports = { name: "Bad Deploy", hooks: { async deploy() { throw new Error("cannot deploy here"); } }, async run() {} };`;
    const e = await expectApiError(alice.client.createSource({ component_code: code }), 400, "hook_failed");
    expect(e.message).toMatch(/cannot deploy here/);
    expect(await count(alice)).toEqual(before);
  });

  it("a failing activate hook on PUT is a 400 and leaves the source as it was", async () => {
    const code = `module.exports = { name: "Picky", props: { ok: { type: "boolean", default: true } },
      hooks: { async activate() { if (!this.ok) throw new Error("not ok"); } }, async run() {} };`;
    const src = await alice.client.createSource({ component_code: code });
    const e = await expectApiError(
      alice.client.updateSource(src.id, {
        component_id: src.component_id,
        name: "Changed",
        configured_props: { ok: false },
      }),
      400,
      "hook_failed",
    );
    expect(e.message).toMatch(/not ok/);
    expect(await alice.client.getSource(src.id)).toEqual(src);
  });

  it("include / exclude shape POST and GET answers", async () => {
    const r = await rawRequest(`${s.baseUrl}/sources/`, {
      method: "POST",
      key: alice.key,
      body: JSON.stringify({ component_code: timerComponent(), include: "id,active" }),
    });
    expect(r.status).toBe(200);
    const data = (r.body as { data: Record<string, unknown> }).data;
    expect(Object.keys(data).sort()).toEqual(["active", "id"]);
    const g = await rawRequest(`${s.baseUrl}/sources/${String(data.id)}?exclude=configured_props`, {
      key: alice.key,
    });
    expect(g.body).toMatchObject({ data: { id: data.id, active: true } });
    expect((g.body as { data: object }).data).not.toHaveProperty("configured_props");
  });
});
