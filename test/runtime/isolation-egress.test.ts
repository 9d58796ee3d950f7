/** The egress proxy on its own: its protocol, its refusals and its limits. */
import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { EgressEndpoint, type EgressOptions } from "../../server/net/egress-proxy.js";

/** Sends one line on the control socket; resolves with the answer line (or "closed"). */
function ask(endpoint: EgressEndpoint, line: string): Promise<string> {
  return new Promise((resolve) => {
    const socket = net.connect({ path: endpoint.controlPath }, () => socket.write(line));
    let answer = "";
    socket.setEncoding("utf8");
    socket.on("data", (d: string) => (answer += d));
    socket.on("error", () => undefined);
    socket.on("close", () => resolve(answer === "" ? "closed" : answer.replace(/\n$/, "")));
  });
}

/** Opens a tunnel: the connected local socket. */
async function tunnel(endpoint: EgressEndpoint, host: string, port: number): Promise<net.Socket> {
  const answer = await ask(endpoint, `OPEN ${host} ${port}\n`);
  const m = /^OK (\S+)$/.exec(answer);
  if (!m) throw new Error(answer);
  return new Promise((resolve, reject) => {
    const s = net.connect({ path: path.join(endpoint.dir, m[1]!) }, () => resolve(s));
    s.on("error", reject);
  });
}

describe("egress proxy", () => {
  let echo: net.Server;
  let echoPort: number;
  const upstreams = new Set<net.Socket>();
  const endpoints: EgressEndpoint[] = [];
  const open = async (options: Partial<EgressOptions> = {}) => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "hw-egt-"));
    const e = await EgressEndpoint.open(dir, {
      policy: { allowPrivate: true, blockedPorts: [5432] },
      ...options,
    });
    endpoints.push(e);
    return e;
  };

  beforeAll(async () => {
    // Echoes upper-cased, and ends its side when the client does (half-close carried through).
    echo = net.createServer({ allowHalfOpen: true }, (s) => {
      upstreams.add(s);
      s.on("close", () => upstreams.delete(s));
      s.on("data", (d) => s.write(d.toString().toUpperCase()));
      s.on("end", () => s.end("bye"));
    });
    await new Promise<void>((r) => echo.listen(0, "127.0.0.1", r));
    echoPort = (echo.address() as net.AddressInfo).port;
  });
  afterEach(() => {
    for (const e of endpoints.splice(0)) e.close();
  });
  afterAll(async () => {
    await new Promise((r) => echo.close(r));
  });

  it("carries bytes both ways through a tunnel, and the end of each side", async () => {
    const e = await open();
    const s = await tunnel(e, "127.0.0.1", echoPort);
    let got = "";
    s.setEncoding("utf8");
    s.on("data", (d: string) => (got += d));
    s.write("hello");
    s.end();
    await new Promise((r) => s.on("close", r));
    expect(got).toBe("HELLObye");
  });

  it("refuses by the policy, by address and by name, before connecting", async () => {
    const e = await open({
      policy: { allowPrivate: false, blockedPorts: [] },
      resolve: async (name) =>
        name === "mixed.test"
          ? [
              { address: "8.8.8.8", family: 4 },
              { address: "::ffff:7f00:1", family: 6 },
            ]
          : [],
    });
    expect(await ask(e, `OPEN 127.0.0.1 ${echoPort}\n`)).toBe(
      `ERR EACCES network access to 127.0.0.1:${echoPort} is not allowed from a component: loopback address`,
    );
    expect(await ask(e, `OPEN ::ffff:7f00:1 ${echoPort}\n`)).toMatch(/^ERR EACCES .*loopback address$/);
    // One refused address refuses the name; nothing is tried (not even the public one).
    expect(await ask(e, `OPEN mixed.test ${echoPort}\n`)).toBe(
      `ERR EACCES network access to mixed.test (::ffff:7f00:1:${echoPort}) is not allowed from a component: loopback address`,
    );
    expect(await ask(e, `OPEN nothing.test ${echoPort}\n`)).toBe(
      "ERR ENOTFOUND getaddrinfo ENOTFOUND nothing.test",
    );
    expect(upstreams.size).toBe(0);
  });

  it("never opens the database's port, where private networks are allowed", async () => {
    const e = await open();
    expect(await ask(e, "OPEN 127.0.0.1 5432\n")).toMatch(/^ERR EACCES .*the database's port$/);
    expect(await ask(e, `CHECK localhost ${echoPort}\n`)).toMatch(/^OK (127\.0\.0\.1|::1)$/);
    expect(await ask(e, `CHECK localhost ${echoPort} 4\n`)).toBe("OK 127.0.0.1");
    expect(await ask(e, `CHECK 127.0.0.1 ${echoPort} 6\n`)).toBe("ERR ENOTFOUND 127.0.0.1 has no IPv6 address");
  });

  it("answers malformed requests with an error, and drops an endless line", async () => {
    const e = await open();
    for (const line of [
      "HELLO\n",
      "OPEN x\n",
      `OPEN 127.0.0.1 0\n`,
      "OPEN 127.0.0.1 99999\n",
      "OPEN bad/name 80\n",
      "OPEN -x- 80\n",
    ]) {
      expect(await ask(e, line), line).toMatch(/^ERR EINVAL /);
    }
    expect(await ask(e, "x".repeat(5000))).toBe("closed");
  });

  it("reports an upstream that refuses the connection", async () => {
    const e = await open();
    const closed = net.createServer();
    await new Promise<void>((r) => closed.listen(0, "127.0.0.1", r));
    const port = (closed.address() as net.AddressInfo).port;
    await new Promise((r) => closed.close(r));
    expect(await ask(e, `OPEN 127.0.0.1 ${port}\n`)).toMatch(/^ERR ECONNREFUSED /);
  });

  it("bounds the tunnels open at once, and drops one nobody claims", async () => {
    const e = await open({ maxTunnels: 2, connectTimeoutMs: 500 });
    const a = await tunnel(e, "127.0.0.1", echoPort);
    const unclaimed = await ask(e, `OPEN 127.0.0.1 ${echoPort}\n`);
    expect(unclaimed).toMatch(/^OK t[0-9a-f]{24}$/);
    expect(await ask(e, `OPEN 127.0.0.1 ${echoPort}\n`)).toMatch(/^ERR EMFILE /);
    // The unclaimed one is dropped after the time to claim it; its slot frees up.
    const deadline = Date.now() + 10_000;
    let answer = "";
    while (Date.now() < deadline) {
      answer = await ask(e, `OPEN 127.0.0.1 ${echoPort}\n`);
      if (answer.startsWith("OK")) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    expect(answer).toMatch(/^OK /);
    expect(fs.existsSync(path.join(e.dir, unclaimed.slice(3)))).toBe(false);
    a.destroy();
  });

  it("bounds the requests in progress: idle control connections beyond it are closed", async () => {
    const e = await open({ maxRequests: 3, connectTimeoutMs: 60_000 });
    const idle = await Promise.all(
      [0, 1, 2].map(
        () =>
          new Promise<net.Socket>((resolve) => {
            const s = net.connect({ path: e.controlPath }, () => resolve(s));
            s.on("error", () => undefined);
          }),
      ),
    );
    expect(await ask(e, `OPEN 127.0.0.1 ${echoPort}\n`)).toBe("closed");
    idle[0]!.destroy();
    const deadline = Date.now() + 10_000;
    let answer = "closed";
    while (answer === "closed" && Date.now() < deadline)
      answer = await ask(e, `CHECK 127.0.0.1 ${echoPort}\n`);
    expect(answer).toBe("OK 127.0.0.1");
    for (const s of idle) s.destroy();
  });

  it("removes its sockets when closed", async () => {
    const e = await open();
    e.close();
    const deadline = Date.now() + 5000;
    while (fs.existsSync(e.dir) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    expect(fs.existsSync(e.dir)).toBe(false);
  });
});
