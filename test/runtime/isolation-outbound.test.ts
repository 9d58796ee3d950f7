/**
 * Components keep their network: a request to an allowed address goes out through the egress
 * proxy, in both modes. The target is a test server bound to a non-loopback address in a network
 * namespace this test makes (ip netns + a veth pair, 10.231.x.0/30): a real interface, on this
 * machine only. Its address is private, so the sandbox runs with private networks allowed
 * (HEADWATER_SANDBOX_ALLOW_PRIVATE_NETWORK's policy): the test never contacts an address off this
 * machine, and the policy's verdict on public addresses is covered by its table
 * (isolation-address-policy.test.ts). The same request with the default policy is refused.
 * Skipped, saying why, where namespaces cannot be made (not root, no iproute2).
 */
import { execFileSync, spawn, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bwrapWorks } from "../../server/runtime/sandbox/isolation.js";
import { SandboxProcess } from "../../server/runtime/sandbox/process.js";
import { tempDataDir } from "./helpers.js";
import { runComponent } from "./sandbox-runner.js";

const id = process.pid % 250;
const NS = `hwtest${process.pid}`;
const HOST_IF = `hw${process.pid}a`.slice(0, 15);
const NS_IF = `hw${process.pid}b`.slice(0, 15);
const NS_ADDRESS = `10.231.${id}.2`;

function ip(...args: string[]): void {
  execFileSync("ip", args, { stdio: "pipe" });
}

/** Makes the namespace; undefined when it worked, else why not. */
function makeNamespace(): string | undefined {
  if (process.platform !== "linux") return "not Linux";
  if (process.getuid?.() !== 0) return "network namespaces need root";
  // Leftovers of an earlier run of this same pid (a crash): the names are ours.
  removeNamespace();
  try {
    ip("netns", "add", NS);
    ip("link", "add", HOST_IF, "type", "veth", "peer", "name", NS_IF);
    ip("link", "set", NS_IF, "netns", NS);
    ip("addr", "add", `10.231.${id}.1/30`, "dev", HOST_IF);
    ip("link", "set", HOST_IF, "up");
    ip("netns", "exec", NS, "ip", "addr", "add", `${NS_ADDRESS}/30`, "dev", NS_IF);
    ip("netns", "exec", NS, "ip", "link", "set", NS_IF, "up");
    return undefined;
  } catch (err) {
    removeNamespace();
    return `cannot make a network namespace: ${(err as Error).message.split("\n")[0]}`;
  }
}

function removeNamespace(): void {
  for (const args of [
    ["link", "del", HOST_IF],
    ["netns", "del", NS],
  ]) {
    try {
      ip(...args);
    } catch {
      // Not made, or already gone.
    }
  }
}

const FETCH = `export default { async run(e) {
  try { const r = await fetch(e.url); this.$emit({ status: r.status, body: await r.text() }); }
  catch (err) { this.$emit({ error: String(err.cause?.message ?? err.message) }); }
} }`;

describe("outbound requests to an allowed address", () => {
  const why = makeNamespace();
  if (why) console.log(`isolation-outbound: skipped: ${why}`);
  const bwrap = bwrapWorks();
  const dataDir = tempDataDir();
  let server: ChildProcess | undefined;
  const procs: SandboxProcess[] = [];

  beforeAll(async () => {
    if (why) return;
    // A self-signed certificate for the TLS server (HTTP/1.1 and HTTP/2 on one port).
    const key = path.join(dataDir, "key.pem");
    const cert = path.join(dataDir, "cert.pem");
    execFileSync(
      "openssl",
      [
        "req",
        "-x509",
        "-newkey",
        "rsa:2048",
        "-nodes",
        "-keyout",
        key,
        "-out",
        cert,
        "-days",
        "1",
        "-subj",
        "/CN=feed.test",
      ],
      { stdio: "pipe" },
    );
    const script = `
      const reply = (q, s) => s.end("hello from " + q.url);
      require("http").createServer(reply).listen(8080, "${NS_ADDRESS}", () => {
        const fs = require("fs");
        require("http2").createSecureServer({ key: fs.readFileSync(${JSON.stringify(key)}), cert: fs.readFileSync(${JSON.stringify(cert)}), allowHTTP1: true }, reply)
          .listen(8443, "${NS_ADDRESS}", () => console.log("up"));
      });`;
    server = spawn("ip", ["netns", "exec", NS, process.execPath, "-e", script], {
      stdio: ["ignore", "pipe", "inherit"],
    });
    await new Promise<void>((resolve, reject) => {
      server!.stdout!.on("data", (d: Buffer) => d.toString().includes("up") && resolve());
      server!.on("exit", (code) => reject(new Error(`the test server exited (${code})`)));
    });
  }, 30_000);
  afterAll(() => {
    for (const p of procs) p.kill();
    server?.kill("SIGKILL");
    if (!why) removeNamespace();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  describe.each(["process", "namespaces"] as const)("%s mode", (isolation) => {
    const skip = Boolean(why) || (isolation === "namespaces" && !bwrap.works);
    const spawnProc = async (allowPrivate: boolean) => {
      const proc = await SandboxProcess.spawn({
        memoryMb: 64,
        npmDir: path.join(dataDir, "npm"),
        tmpRoot: path.join(dataDir, "sandbox"),
        isolation,
        network: { allowPrivate, blockedPorts: [5432] },
      });
      procs.push(proc);
      return proc;
    };

    it.skipIf(skip)(
      "reaches the test server through the egress proxy: fetch, http, net",
      async () => {
        const proc = await spawnProc(true);
        const run = await runComponent(proc, FETCH, { url: `http://${NS_ADDRESS}:8080/feed` });
        expect(run.emits).toEqual([{ status: 200, body: "hello from /feed" }]);
        const code = `import http from "node:http"; import net from "node:net";
        export default { async run(e) {
          const viaHttp = await new Promise((resolve) => {
            http.get({ host: e.host, port: 8080, path: "/h1" }, (res) => {
              let body = ""; res.on("data", (d) => (body += d)); res.on("end", () => resolve(res.statusCode + " " + body));
            }).on("error", (err) => resolve(err.message));
          });
          const viaNet = await new Promise((resolve) => {
            // Written before the connection exists: it must wait for it, as with a DNS lookup.
            const socket = net.connect(8080, e.host);
            socket.write("GET /raw HTTP/1.0\\r\\n\\r\\n");
            let text = ""; socket.on("data", (d) => (text += d)); socket.on("end", () => resolve(text.split("\\r\\n").pop()));
            socket.on("error", (err) => resolve(err.message));
          });
          this.$emit({ viaHttp, viaNet });
        } }`;
        const more = await runComponent(proc, code, { host: NS_ADDRESS });
        expect(more.outcome.kind === "done" && more.outcome.message.error).toBe(undefined);
        expect(more.emits).toEqual([{ viaHttp: "200 hello from /h1", viaNet: "hello from /raw" }]);
      },
      60_000,
    );

    it.skipIf(skip)(
      "speaks TLS end to end through the tunnel: https and HTTP/2",
      async () => {
        const proc = await spawnProc(true);
        const code = `import https from "node:https"; import http2 from "node:http2";
        export default { async run(e) {
          const viaHttps = await new Promise((resolve) => {
            https.get({ host: e.host, port: 8443, path: "/h1", servername: "feed.test", ca: e.ca }, (res) => {
              let body = ""; res.on("data", (d) => (body += d)); res.on("end", () => resolve(res.statusCode + " " + body));
            }).on("error", (err) => resolve(err.message));
          });
          const viaHttp2 = await new Promise((resolve) => {
            const session = http2.connect("https://" + e.host + ":8443", { servername: "feed.test", ca: e.ca });
            session.on("error", (err) => resolve(err.message));
            const req = session.request({ ":path": "/h2" });
            let body = "";
            req.on("data", (d) => (body += d));
            req.on("end", () => { session.close(); resolve(body); });
            req.on("error", (err) => resolve(err.message));
          });
          this.$emit({ viaHttps, viaHttp2 });
        } }`;
        const ca = fs.readFileSync(path.join(dataDir, "cert.pem"), "utf8");
        const run = await runComponent(proc, code, { host: NS_ADDRESS, ca });
        expect(run.emits).toEqual([{ viaHttps: "200 hello from /h1", viaHttp2: "hello from /h2" }]);
      },
      60_000,
    );

    it.skipIf(skip)(
      "is refused the same server under the default policy",
      async () => {
        const proc = await spawnProc(false);
        const run = await runComponent(proc, FETCH, { url: `http://${NS_ADDRESS}:8080/feed` });
        expect(run.emits).toEqual([
          { error: expect.stringMatching(/not allowed from a component: private address/) },
        ]);
      },
      60_000,
    );
  });
});
