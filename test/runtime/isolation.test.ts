/**
 * Hostile components: each attack is refused or stopped, recorded on $errors, and the source
 * (and the server) keeps working afterwards.
 */
import dgram from "node:dgram";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SANDBOX_NICE } from "../../server/runtime/sandbox/process.js";
import { testDatabases } from "../support/databases.js";
import { startServer, type TestServer, type TestUser } from "../support/server.js";
import { fixture, hit, waitForEvents } from "./helpers.js";

interface ErrorEvent {
  error: { code: string; message: string };
  original_event: { body: unknown };
}

describe("isolation", () => {
  let s: TestServer;
  let alice: TestUser;
  let sourceId: string;
  let url: string;
  let errors = 0;
  let emits = 0;
  const dbFile = () => path.join(s.dataDir, "headwater.db");

  beforeAll(async () => {
    // The limit leaves room for a heap bomb to hit the memory limit first on a loaded machine.
    s = await startServer({ env: { HEADWATER_INVOCATION_TIMEOUT_MS: "5000", HEADWATER_SANDBOX_MEMORY_MB: "64" } });
    alice = await s.newUser();
    const src = await alice.client.createSource({ component_code: fixture("hostile.mjs"), configured_props: { dbFile: dbFile() } });
    sourceId = src.id;
    url = (src.configured_props.http as { endpoint_url: string }).endpoint_url;
  });
  afterAll(async () => {
    await s?.stop();
  });

  /** Sends an attack; returns the $errors event it produced. */
  async function attack(what: string): Promise<ErrorEvent> {
    expect((await hit(url, { body: { what } })).status).toBe(200);
    errors += 1;
    const list = await waitForEvents(alice.client, sourceId, "$errors", errors, 30_000);
    return list[errors - 1]!.event as ErrorEvent;
  }

  /** The source still runs: a harmless request emits. */
  async function stillWorks() {
    expect((await hit(url, { body: { what: "ok" } })).status).toBe(200);
    emits += 1;
    const list = await waitForEvents(alice.client, sourceId, "", emits);
    expect(list[emits - 1]!.event).toEqual({ ok: true });
    expect((await hit(`${s.origin}/healthz`)).status).toBe(200);
  }

  it("stops an infinite loop: TIMEOUT", async () => {
    const e = await attack("loop");
    expect(e.error.code).toBe("TIMEOUT");
    expect(e.original_event.body).toEqual({ what: "loop" });
    await stillWorks();
  });

  it("in a burst, stops the looping run and keeps the runs before and after it", async () => {
    // Queued back to back, they run as a batch in one worker request; the loop is stopped there.
    for (const what of ["ok", "loop", "ok"]) expect((await hit(url, { body: { what } })).status).toBe(200);
    errors += 1;
    emits += 2;
    const failed = await waitForEvents(alice.client, sourceId, "$errors", errors, 30_000);
    expect(failed[errors - 1]!.event).toMatchObject({ error: { code: "TIMEOUT" }, original_event: { body: { what: "loop" } } });
    const ran = await waitForEvents(alice.client, sourceId, "", emits, 30_000);
    expect(ran.slice(-2).map((e) => e.event)).toEqual([{ ok: true }, { ok: true }]);
    await stillWorks();
  });

  it("stops a heap memory bomb and a Buffer bomb: OUT_OF_MEMORY", async () => {
    expect((await attack("memory")).error.code).toBe("OUT_OF_MEMORY");
    await stillWorks();
    expect((await attack("buffers")).error.code).toBe("OUT_OF_MEMORY");
    await stillWorks();
  });

  it("refuses reading /etc/passwd and the database file, and writing the database file", async () => {
    const before = fs.readFileSync(dbFile()).length;
    for (const what of ["passwd", "dbfile", "write"]) {
      const e = await attack(what);
      expect(e.error.code).toBe("COMPONENT_ERROR");
      expect(e.error.message).toMatch(/Access to this API has been restricted/);
    }
    expect(fs.readFileSync(dbFile()).length).toBeGreaterThanOrEqual(before);
    await stillWorks();
  });

  it("refuses child processes and exiting the worker", async () => {
    expect((await attack("spawn")).error.message).toMatch(/Access to this API has been restricted/);
    expect((await attack("crash")).error.message).toMatch(/process.exit is not available/);
    await stillWorks();
  });

  it("refuses connections to loopback (the server, PostgreSQL), by address, by name and by unix socket", async () => {
    const port = Number(new URL(s.origin).port);
    const cases: Array<[string, Record<string, unknown>, RegExp]> = [
      ["tcp", { options: { host: "127.0.0.1", port } }, /network access to 127\.0\.0\.1:\d+ is not allowed/],
      ["tcp", { options: { host: "127.0.0.1", port: 5432 } }, /not allowed/],
      ["tcp", { options: { host: "::1", port: 5432 } }, /not allowed/],
      ["tcp", { options: { host: "localhost", port } }, /network access to localhost \(.*\) is not allowed/],
      ["tcp", { options: { path: "/var/run/postgresql/.s.PGSQL.5432" } }, /unix socket is not allowed/],
      ["fetch", { url: `${s.origin}/healthz` }, /not allowed/],
      ["fetch", { url: "http://169.254.169.254/latest/meta-data/" }, /not allowed/],
    ];
    for (const [what, extra, expected] of cases) {
      await hit(url, { body: { what, ...extra } });
      emits += 1;
      const list = await waitForEvents(alice.client, sourceId, "", emits);
      const result = Object.values(list[emits - 1]!.event as Record<string, string>)[0];
      expect(String(result)).toMatch(expected);
    }
  });

  it("refuses UDP to loopback and private addresses, by address or by name", async () => {
    await hit(url, { body: { what: "udp" } });
    emits += 1;
    const list = await waitForEvents(alice.client, sourceId, "", emits);
    const udp = (list[emits - 1]!.event as { udp: Record<string, string> }).udp;
    expect(Object.keys(udp)).toEqual(["literal", "name", "unspecified", "private", "connect"]);
    for (const result of Object.values(udp)) expect(result).toMatch(/not allowed from a component/);
  });

  it("gives each invocation a writable temp dir that starts empty", async () => {
    for (const what of ["tmp-write", "tmp-read"]) {
      await hit(url, { body: { what } });
      emits += 1;
    }
    const list = await waitForEvents(alice.client, sourceId, "", emits);
    expect(list.slice(-2).map((e) => e.event)).toEqual([{ tmp: ["left-behind.txt"] }, { tmp: [] }]);
  });

  it("refuses signals to other processes (the server: kill, _kill, _debugProcess)", async () => {
    await hit(url, { body: { what: "signal" } });
    emits += 1;
    const list = await waitForEvents(alice.client, sourceId, "", emits);
    expect(list[emits - 1]!.event).toEqual({
      signal: {
        kill: "process.kill is not available to components",
        _kill: "process._kill is not available to components",
        _debugProcess: "process._debugProcess is not available to components",
      },
    });
    expect((await hit(`${s.origin}/healthz`)).status).toBe(200);
  });

  it("refuses closing the IPC channel: the run that tries ends normally, its worker alive", async () => {
    await hit(url, { body: { what: "hangup" } });
    emits += 1;
    const list = await waitForEvents(alice.client, sourceId, "", emits, 30_000);
    expect(list[emits - 1]!.event).toEqual({
      hangup: {
        disconnect: "process.disconnect is not available to components",
        _disconnect: "process._disconnect is not available to components",
        symbols: expect.not.arrayContaining(["Symbol(kChannelHandle)"]) as unknown,
      },
    });
    await stillWorks();
  });

  it("keeps the IPC channel to the host out of the component's reach", async () => {
    await hit(url, { body: { what: "forge" } });
    emits += 1;
    const list = await waitForEvents(alice.client, sourceId, "", emits);
    expect(list[emits - 1]!.event).toEqual({ canSend: false });
  });

  it("runs components at a lower CPU priority than the server", async () => {
    await hit(url, { body: { what: "priority" } });
    emits += 1;
    const list = await waitForEvents(alice.client, sourceId, "", emits);
    // Where renicing is refused (some containers) workers keep the server's priority; not here.
    expect(list[emits - 1]!.event).toEqual({ priority: Math.min(19, os.getPriority() + SANDBOX_NICE) });
  });

  it("shows the component an empty environment (its temp dir and, as on the hosted service, its own id)", async () => {
    await hit(url, { body: { what: "env" } });
    emits += 1;
    const list = await waitForEvents(alice.client, sourceId, "", emits);
    const env = (list[emits - 1]!.event as { env: Record<string, string> }).env;
    expect(Object.keys(env).sort()).toEqual(["PD_COMPONENT", "TMPDIR"]);
    expect(env.PD_COMPONENT).toBe(sourceId);
    expect(JSON.stringify(env)).not.toContain(s.adminKey);
  });
});

// UDP reaches the network in process mode only: in namespaces mode the worker has no interface
// and the egress proxy carries TCP (isolation-sandbox.test.ts shows the refusal).
describe("isolation where private addresses are allowed (process mode)", () => {
  let s: TestServer;
  let alice: TestUser;

  beforeAll(async () => {
    s = await startServer({ env: { HEADWATER_SANDBOX_ALLOW_PRIVATE_NETWORK: "1", HEADWATER_SANDBOX_ISOLATION: "process" } });
    alice = await s.newUser();
  });
  afterAll(async () => {
    await s?.stop();
  });

  it("lets UDP datagrams through to the checked address", async () => {
    const receiver = dgram.createSocket("udp4");
    const received: string[] = [];
    receiver.on("message", (m) => received.push(m.toString()));
    await new Promise<void>((r) => receiver.bind(0, "127.0.0.1", r));
    try {
      const src = await alice.client.createSource({ component_code: fixture("hostile.mjs") });
      const url = (src.configured_props.http as { endpoint_url: string }).endpoint_url;
      await hit(url, { body: { what: "udp", port: receiver.address().port } });
      const [event] = await waitForEvents(alice.client, src.id, "", 1);
      expect(event!.event).toEqual({ udp: { literal: "sent", name: "sent", unspecified: "sent", connect: "connected" } });
      for (let i = 0; i < 100 && received.length < 3; i++) await new Promise((r) => setTimeout(r, 20));
      expect(received).toEqual(["x", "x", "x"]);
    } finally {
      receiver.close();
    }
  });
});

// The database port stays closed even where private addresses are allowed. Skipped when
// HEADWATER_TEST_DATABASE_URL is not set (no PostgreSQL to protect); CI sets it.
const postgres = testDatabases().find((d) => d.name === "postgres");
describe.skipIf(!postgres)("isolation from PostgreSQL", () => {
  let s: TestServer;
  let alice: TestUser;

  beforeAll(async () => {
    s = await startServer({ db: postgres!, env: { HEADWATER_SANDBOX_ALLOW_PRIVATE_NETWORK: "1" } });
    alice = await s.newUser();
  });
  afterAll(async () => {
    await s?.stop();
  });

  it("refuses the database's port, while other loopback ports are allowed", async () => {
    const src = await alice.client.createSource({ component_code: fixture("hostile.mjs") });
    const url = (src.configured_props.http as { endpoint_url: string }).endpoint_url;
    const db = new URL(s.databaseUrl!);
    const dbPort = Number(db.port || 5432);
    const serverPort = Number(new URL(s.origin).port);
    await hit(url, { body: { what: "tcp", options: { host: "127.0.0.1", port: dbPort } } });
    await hit(url, { body: { what: "tcp", options: { host: "127.0.0.1", port: serverPort } } });
    const events = await waitForEvents(alice.client, src.id, "", 2);
    expect(events.map((e) => e.event)).toEqual([{ tcp: expect.stringMatching(/not allowed/) }, { tcp: "connected" }]);
  });
});
