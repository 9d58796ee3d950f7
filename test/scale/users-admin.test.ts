/**
 * An admin's change to a user holds on every instance at once (decisions.md, Operating a
 * server): with two server processes on one PostgreSQL, a user disabled or deleted through
 * instance A has endpoints answering 403 / 404 through instance B right away, although B had
 * just served (and remembered) those endpoints.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createClient } from "../../shared/client/index.js";
import { postgresForScale, startCluster, type Cluster } from "./cluster.js";

const HTTP_SOURCE = `export default {
  name: "ok", version: "0.1.0",
  props: { http: "$.interface.http" },
  async run() {},
};`;

describe.skipIf(!postgresForScale())("user administration across instances", () => {
  let cluster: Cluster;
  beforeAll(async () => {
    cluster = await startCluster(["A", "B"]);
  }, 120_000);
  afterAll(() => cluster?.stop());

  it("disable and delete through A: B's endpoints answer 403 then 404 at once", { timeout: 60_000 }, async () => {
    const [a, b] = cluster.instances as [(typeof cluster.instances)[0], (typeof cluster.instances)[0]];
    const made = await a.client.createUser({ username: "roamer" });
    const roamer = createClient({ baseUrl: b.server.baseUrl, apiKey: made.api_key! });
    const src = await roamer.createSource({ component_code: HTTP_SOURCE });
    const path = new URL((src.configured_props.http as { endpoint_url: string }).endpoint_url).pathname;
    const viaB = () => fetch(`${b.server.origin}${path}`, { method: "POST", body: "{}" });
    expect((await viaB()).status).toBe(200);

    await a.client.updateUser(made.id, { disabled: true });
    const disabled = await viaB();
    expect(disabled.status).toBe(403);
    expect(await disabled.json()).toMatchObject({ code: "user_disabled" });

    await a.client.updateUser(made.id, { disabled: false });
    expect((await viaB()).status).toBe(200);

    await a.client.deleteUser(made.id);
    expect((await viaB()).status).toBe(404);
    expect((await fetch(`${b.server.baseUrl}/users/me`, { headers: { authorization: `Bearer ${made.api_key}` } })).status).toBe(401);
  });
});
