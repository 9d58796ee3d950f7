/**
 * The one address policy (server/net/address-policy.cjs): its verdicts as a table, then the same
 * forms through the server's `component_url` fetcher, directly and through `POST /components`,
 * with redirects. (isolation-sandbox.test.ts runs the same table through the sandbox's path.)
 */
import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { fetchComponent } from "../../server/components/fetch.js";
import { checkAddress, type AddressPolicy } from "../../server/net/address-policy.cjs";
import { startServer, type TestServer, type TestUser } from "../support/server.js";
import { LOOPBACK_LITERALS, LOOPBACK_NAMES, OTHER_FORMS, urlHost } from "./address-forms.js";

const STRICT: AddressPolicy = { allowPrivate: false, blockedPorts: [] };
const LAN: AddressPolicy = { allowPrivate: true, blockedPorts: [5432] };

describe("the address policy", () => {
  const table: Array<[string, string | true, string | true]> = [
    // address, verdict with the default policy, verdict where private networks are allowed
    ["8.8.8.8", true, true],
    ["2606:4700::1111", true, true],
    ["::ffff:8.8.8.8", true, true],
    ["64:ff9b::808:808", true, true],
    ["2002:808:808::1", true, true],
    ["127.0.0.1", "loopback address", true],
    ["127.1", "loopback address", true],
    ["2130706433", "loopback address", true],
    ["0x7f000001", "loopback address", true],
    ["0177.0.0.1", "loopback address", true],
    ["::1", "loopback address", true],
    ["[::1]", "loopback address", true],
    ["::ffff:127.0.0.1", "loopback address", true],
    ["::ffff:7f00:1", "loopback address", true],
    ["::ffff:0:7f00:1", "loopback address", true],
    ["64:ff9b::7f00:1", "loopback address", true],
    ["2002:7f00:1::", "loopback address", true],
    ["::7f00:1", "loopback address", true],
    ["0.0.0.0", "unspecified address", true],
    ["::", "unspecified address", true],
    ["10.1.2.3", "private address", true],
    ["172.16.0.1", "private address", true],
    ["192.168.1.1", "private address", true],
    ["169.254.169.254", "link-local address", true],
    ["::ffff:a9fe:a9fe", "link-local address", true],
    ["fe80::1%eth0", "link-local address", true],
    ["100.64.0.1", "CGNAT address", true],
    ["fd00::1", "unique-local address", true],
    ["224.0.0.1", "multicast address", "multicast address"],
    ["ff02::1", "multicast address", "multicast address"],
    ["255.255.255.255", "broadcast address", "broadcast address"],
    ["240.0.0.1", "reserved (reserved) address", "reserved (reserved) address"],
    ["2001::1", "Teredo address", "Teredo address"],
    // Local-use NAT64 carries a global IPv4 here and is still refused, whatever the policy.
    ["64:ff9b:1::808:808", "reserved (rfc6052) address", "reserved (rfc6052) address"],
    ["localhost", "not an IP address", "not an IP address"],
  ];
  it.each(table)("%s: %s / %s", (address, strict, lan) => {
    const verdict = (policy: AddressPolicy) => {
      const v = checkAddress(address, 80, policy);
      return v.allowed ? true : v.reason;
    };
    expect(verdict(STRICT)).toBe(strict);
    expect(verdict(LAN)).toBe(lan);
  });

  it("never allows the database's port on a local address, even where private networks are allowed", () => {
    expect(checkAddress("::ffff:7f00:1", 5432, LAN)).toEqual({
      allowed: false,
      reason: "the database's port",
    });
    expect(checkAddress("127.0.0.1", 5433, LAN)).toEqual({ allowed: true });
  });
});

describe("component_url fetches under the policy", () => {
  let files: http.Server;
  let port: number;
  const requests: string[] = [];
  let s: TestServer;
  let alice: TestUser;

  beforeAll(async () => {
    files = http.createServer((req, res) => {
      requests.push(req.url ?? "");
      if (req.url?.startsWith("/redirect/")) {
        res.writeHead(302, { location: decodeURIComponent(req.url.slice("/redirect/".length)) }).end();
      } else res.end("export default { name: 'fetched', async run() {} };");
    });
    await new Promise<void>((resolve) => files.listen(0, "127.0.0.1", resolve));
    port = (files.address() as AddressInfo).port;
    s = await startServer();
    alice = await s.newUser();
  });
  afterAll(async () => {
    await new Promise((r) => files.close(r));
    await s?.stop();
  });

  it.each([...LOOPBACK_LITERALS, ...LOOPBACK_NAMES, ...OTHER_FORMS])(
    "refuses %s before connecting",
    async (host) => {
      requests.length = 0;
      const url = `http://${urlHost(host)}:${port}/c.js`;
      await expect(fetchComponent(url, STRICT)).rejects.toThrow(
        /refused: |ENOTFOUND localhost\.|Invalid URL/,
      );
      expect(requests).toEqual([]);
    },
  );

  it("checks the address again after a redirect: an allowed server cannot send the fetcher to a refused one", async () => {
    const serverPort = Number(new URL(s.origin).port);
    // Private networks allowed, the headwater server's port standing for the database's.
    const lan = { allowPrivate: true, blockedPorts: [serverPort] };
    expect((await fetchComponent(`http://127.0.0.1:${port}/c.js`, lan)).code).toContain("fetched");
    requests.length = 0;
    const target = `http://[::ffff:7f00:1]:${serverPort}/healthz`;
    await expect(
      fetchComponent(`http://localhost:${port}/redirect/${encodeURIComponent(target)}`, lan),
    ).rejects.toThrow(/could not fetch .*refused: the database's port/);
    expect(requests).toEqual([`/redirect/${encodeURIComponent(target)}`]);
  });

  it("POST /components answers 400 component_fetch_failed for the server's own port and the metadata address", async () => {
    const serverPort = Number(new URL(s.origin).port);
    for (const url of [
      `http://[::ffff:127.0.0.1]:${serverPort}/healthz`,
      `http://[::ffff:7f00:1]:${serverPort}/healthz`,
      `http://[64:ff9b::7f00:1]:${serverPort}/healthz`,
      `http://2130706433:${serverPort}/healthz`,
      `http://localhost:${serverPort}/healthz`,
      "http://[::ffff:a9fe:a9fe]/latest/meta-data/",
    ]) {
      const res = await fetch(`${s.baseUrl}/components`, {
        method: "POST",
        headers: { authorization: `Bearer ${alice.key}`, "content-type": "application/json" },
        body: JSON.stringify({ component_url: url }),
      });
      expect(res.status, url).toBe(400);
      const body = (await res.json()) as { code: string; error: string };
      expect(body.code, url).toBe("component_fetch_failed");
      expect(body.error, url).toMatch(/refused: (loopback|link-local) address/);
    }
  });
});
