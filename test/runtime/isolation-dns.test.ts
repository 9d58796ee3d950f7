/**
 * In process mode, Node's DNS resolver (c-ares) sends its queries from native code, past the
 * sandbox's UDP and TCP guards: a component pointing it at a server of its choosing could reach
 * loopback and private addresses. Every way to choose a server is refused; nothing arrives.
 */
import dgram from "node:dgram";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServer, type TestServer, type TestUser } from "../support/server.js";
import { fixture, hit, waitForEvents } from "./helpers.js";

const REFUSED = "network access to DNS servers of its own choosing is not allowed from a component: queries go to the host's resolvers only";

describe("choosing DNS servers (process mode)", () => {
  let s: TestServer;
  let alice: TestUser;

  beforeAll(async () => {
    s = await startServer({ env: { HEADWATER_SANDBOX_ISOLATION: "process" } });
    alice = await s.newUser();
  });
  afterAll(async () => {
    await s?.stop();
  });

  it("is refused by every door, and no query reaches the loopback server it named", { timeout: 60_000 }, async () => {
    const listener = dgram.createSocket("udp4");
    const received: Buffer[] = [];
    listener.on("message", (m) => received.push(m));
    await new Promise<void>((r) => listener.bind(0, "127.0.0.1", r));
    try {
      const server = `127.0.0.1:${listener.address().port}`;
      const src = await alice.client.createSource({ component_code: fixture("dns-servers.mjs") });
      const url = (src.configured_props.http as { endpoint_url: string }).endpoint_url;
      expect((await hit(url, { body: { server } })).status).toBe(200);
      const [event] = await waitForEvents(alice.client, src.id, "", 1, 30_000);
      const { results, servers } = event!.event as { results: Record<string, string>; servers: string[] };
      expect(results).toEqual({
        dns: REFUSED,
        named: REFUSED,
        promises: REFUSED,
        dnsPromises: REFUSED,
        resolver: REFUSED,
        promisesResolver: REFUSED,
        base: REFUSED,
        handle: REFUSED,
      });
      expect(servers).not.toContain(server);
      // The component asked three times after trying; a query sent would have arrived by now.
      await new Promise((r) => setTimeout(r, 500));
      expect(received).toEqual([]);
    } finally {
      listener.close();
    }
  });
});
