/**
 * Invocations per second of a trivial HTTP source (request → durable queue → sandbox worker →
 * `this.http.respond` → response) against a bare node:http handler measured in the same run.
 * The ratio of medians says what the runtime costs per request on top of plain Node.
 * The same source runs on two servers, one per isolation mode (namespaces: where bwrap works),
 * and a worker's start is timed in each mode: what the namespaces cost against process mode.
 */
import fs from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import { bwrapWorks } from "../server/runtime/sandbox/isolation.js";
import { SandboxProcess } from "../server/runtime/sandbox/process.js";
import { startServer, type TestServer } from "../test/support/server.js";
import type { BenchCase } from "./harness.js";
import { defineBench } from "./harness.js";

const TRIVIAL_SOURCE = `
export default {
  name: "Trivial HTTP source",
  props: { http: { type: "$.interface.http", customResponse: true } },
  async run(event) {
    this.http.respond({ status: 200, body: { ok: true, path: event.path } });
  },
};`;

const ACK_SOURCE = `
export default {
  name: "Trivial HTTP source (ack)",
  props: { http: "$.interface.http" },
  async run(event) {},
};`;

export default defineBench("runtime", async () => {
  const bare = http.createServer((req, res) => {
    req.resume();
    req.on("end", () => {
      res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ ok: true, path: req.url }));
    });
  });
  await new Promise<void>((resolve) => bare.listen(0, "127.0.0.1", resolve));
  const bareUrl = `http://127.0.0.1:${(bare.address() as AddressInfo).port}/`;

  const endpoint = (src: { configured_props: Record<string, unknown> }) => (src.configured_props.http as { endpoint_url: string }).endpoint_url;
  const post = async (url: string) => {
    const res = await fetch(url, { method: "POST", headers: { "content-type": "application/json" }, body: '{"n":1}' });
    await res.text();
    if (res.status !== 200) throw new Error(`${url} answered ${res.status}`);
  };

  const modes = bwrapWorks().works ? (["process", "namespaces"] as const) : (["process"] as const);
  if (modes.length === 1) console.log(`namespaces mode not measured: ${bwrapWorks().why}`);
  const servers: TestServer[] = [];
  const cases: BenchCase[] = [{ name: "bare node:http handler", run: () => post(bareUrl), iterations: 500, warmup: 50 }];
  const ratios: Array<[string, string]> = [];
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "hw-bench-"));
  for (const mode of modes) {
    const s = await startServer({ env: { HEADWATER_LOG_LEVEL: "error", HEADWATER_SANDBOX_ISOLATION: mode } });
    servers.push(s);
    const u = await s.newUser("bench");
    const sourceUrl = endpoint(await u.client.createSource({ component_code: TRIVIAL_SOURCE }));
    const ackUrl = endpoint(await u.client.createSource({ component_code: ACK_SOURCE }));
    cases.push(
      { name: `invocation, custom response (${mode})`, run: () => post(sourceUrl), iterations: 300, warmup: 30 },
      { name: `request acknowledged, queued (${mode})`, run: () => post(ackUrl), iterations: 300, warmup: 30 },
      {
        name: `worker start and stop (${mode})`,
        run: async () => {
          const proc = await SandboxProcess.spawn({ memoryMb: 64, npmDir: path.join(tmp, "npm"), tmpRoot: path.join(tmp, "sandbox"), isolation: mode });
          proc.kill();
        },
        iterations: 30,
        warmup: 3,
      },
    );
    ratios.push([`invocation, custom response (${mode})`, "bare node:http handler"]);
  }
  if (modes.length === 2) {
    ratios.push(
      ["invocation, custom response (namespaces)", "invocation, custom response (process)"],
      ["request acknowledged, queued (namespaces)", "request acknowledged, queued (process)"],
      ["worker start and stop (namespaces)", "worker start and stop (process)"],
    );
  }

  return {
    cases,
    ratios,
    teardown: async () => {
      for (const s of servers) await s.stop();
      fs.rmSync(tmp, { recursive: true, force: true });
      await new Promise<void>((resolve) => bare.close(() => resolve()));
    },
  };
});
