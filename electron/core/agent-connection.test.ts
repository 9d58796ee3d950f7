/**
 * "Connect an agent" → Test, through the host against a real server's `/mcp`: the host connects
 * with the MCP client SDK and the connection's key, and answers the tool list; a refused key, a
 * server without `/mcp` and one out of reach come back as errors in words, never with the key.
 */
import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { AgentConnectionTest, BridgeResult, Profile } from "../../shared/bridge.js";
import { startServer, type TestServer } from "../../test/support/server.js";
import { agentError } from "./agent-connection.js";
import { HostError } from "./errors.js";
import { Host } from "./host.js";
import { MemoryKeyVault } from "./key-vault.js";
import { MemorySettingsStore } from "./settings.js";
import { startFakeApi, type FakeApi } from "./testing/fake-api.js";

let server: TestServer;
let fakeApi: FakeApi;
const hosts: Host[] = [];

beforeAll(async () => {
  [server, fakeApi] = await Promise.all([startServer(), startFakeApi()]);
}, 60_000);

afterAll(async () => {
  await Promise.all(hosts.map((h) => h.stop()));
  await Promise.all([server?.stop(), fakeApi?.close()]);
});

/** A host whose current connection is `baseUrl` with `apiKey`. */
async function hostOn(baseUrl: string, apiKey: string): Promise<Host> {
  const host = new Host({
    mode: "web",
    version: "0.0.0-test",
    appRoot: "/nonexistent",
    userDataDir: "/nonexistent",
    settings: new MemorySettingsStore(),
    vault: new MemoryKeyVault(),
  });
  hosts.push(host);
  const added = await host.call("addRemoteProfile", [{ name: "Test", baseUrl, apiKey }]);
  if (!added.ok) throw new Error(JSON.stringify(added.error));
  return host;
}

const test = (host: Host) =>
  host.call("testAgentConnection", []) as Promise<BridgeResult<AgentConnectionTest>>;

describe("testAgentConnection", () => {
  it("lists the server's tools over Streamable HTTP at <origin>/mcp, with the connection's key", async () => {
    const { key } = await server.newUser("agent");
    const host = await hostOn(server.baseUrl, key);
    const r = await test(host);
    if (!r.ok) throw new Error(JSON.stringify(r.error));
    expect(r.value.url).toBe(`${server.origin}/mcp`);
    const names = r.value.tools.map((t) => t.name);
    // The contract's tools (decisions.md "Agents (MCP)"), each with words for the list.
    for (const name of [
      "whoami",
      "list_sources",
      "create_source",
      "list_events",
      "wait_for_events",
      "replay_events",
      "subscribe",
    ]) {
      expect(names).toContain(name);
    }
    expect(r.value.tools.every((t) => typeof t.description === "string" && t.description.length > 0)).toBe(
      true,
    );
    expect(r.value.protocolVersion).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    expect(r.value.server?.name).toBeTruthy();
    expect(JSON.stringify(r)).not.toContain(key);
  });

  it("a refused key is a 401 in words, and does not mark the connection refused (/mcp is not /v1)", async () => {
    const host = await hostOn(server.baseUrl, "test_not_a_key_of_this_server_0123456789");
    const r = await test(host);
    expect(r).toMatchObject({ ok: false, error: { status: 401, code: "unauthorized" } });
    expect(!r.ok && r.error.message).toBe(
      `The MCP endpoint ${server.origin}/mcp refused this connection's API key: unknown API key.`,
    );
    expect(JSON.stringify(r)).not.toContain("test_not_a_key");
    const profiles = await host.call("listProfiles", []);
    expect(profiles.ok && (profiles.value as Profile[]).find((p) => p.current)?.status).toBe("ready");
  });

  it("a server without /mcp is a 404 `no_mcp` that says so", async () => {
    const host = await hostOn(fakeApi.baseUrl, fakeApi.key);
    const r = await test(host);
    expect(r).toMatchObject({ ok: false, error: { status: 404, code: "no_mcp" } });
    expect(!r.ok && r.error.message).toMatch(
      new RegExp(`^There is no MCP endpoint at ${fakeApi.url}/mcp \\(HTTP 404\\)`),
    );
    // The key went only where it was meant to: the connection's own origin.
    expect(
      fakeApi.requests
        .filter((q) => q.url === "/mcp")
        .every((q) => q.authorization === `Bearer ${fakeApi.key}`),
    ).toBe(true);
  });

  it("a server out of reach is a network error naming the URL", async () => {
    // A port that was just free: nothing listens there.
    const probe = http.createServer();
    await new Promise<void>((r) => probe.listen(0, "127.0.0.1", r));
    const port = (probe.address() as AddressInfo).port;
    await new Promise<void>((r) => probe.close(() => r()));
    const host = await hostOn(`http://127.0.0.1:${port}/v1`, "k_0123456789");
    const r = await test(host);
    expect(r).toMatchObject({ ok: false, error: { status: 0, code: "network_error" } });
    expect(!r.ok && r.error.message).toMatch(
      new RegExp(`^Cannot reach http://127\\.0\\.0\\.1:${port}/mcp: .*ECONNREFUSED`),
    );
  });

  it("a server that never answers is a timeout, not a hang", async () => {
    const silent = http.createServer(() => undefined);
    await new Promise<void>((r) => silent.listen(0, "127.0.0.1", r));
    try {
      const { testAgentConnection } = await import("./agent-connection.js");
      const url = `http://127.0.0.1:${(silent.address() as AddressInfo).port}`;
      const err = await testAgentConnection({
        baseUrl: `${url}/v1`,
        apiKey: "k",
        clientVersion: "0",
        timeoutMs: 300,
      }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(HostError);
      expect(err).toMatchObject({ status: 504, code: "timeout" });
    } finally {
      silent.closeAllConnections();
      await new Promise<void>((r) => silent.close(() => r()));
    }
  });
});

describe("agentError", () => {
  const url = "https://hw.example.com/mcp";
  it("reads the server's words from a JSON or JSON-RPC body, never from an HTML page", () => {
    expect(
      agentError(
        { data: { status: 403, text: '{"error":"origin x may not use /mcp","code":"forbidden"}' } },
        url,
      ).message,
    ).toBe(`The MCP endpoint ${url} refused the request: origin x may not use /mcp.`);
    expect(
      agentError(
        {
          data: { status: 500, text: '{"jsonrpc":"2.0","error":{"code":-32603,"message":"boom"},"id":null}' },
        },
        url,
      ),
    ).toMatchObject({
      status: 502,
      code: "unexpected_response",
      message: `The MCP endpoint ${url} answered HTTP 500: boom.`,
    });
    expect(agentError({ data: { status: 405, text: "<html>nope</html>" } }, url)).toMatchObject({
      status: 404,
      code: "no_mcp",
    });
    // A page served at /mcp: it answered, but not MCP.
    expect(agentError({ data: { status: 200, text: "<!doctype html>" } }, url)).toMatchObject({
      status: 502,
      code: "no_mcp",
    });
    expect(agentError(new Error("not JSON-RPC"), url)).toMatchObject({
      status: 502,
      code: "unexpected_response",
    });
  });
});
