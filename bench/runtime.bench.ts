/**
 * Invocations per second of a trivial HTTP source (request → durable queue → sandbox worker →
 * `this.http.respond` → response) against a bare node:http handler measured in the same run.
 * The ratio of medians says what the runtime costs per request on top of plain Node.
 */
import http from "node:http";
import type { AddressInfo } from "node:net";
import { startServer } from "../test/support/server.js";
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

  const s = await startServer({ env: { HEADWATER_LOG_LEVEL: "error" } });
  const u = await s.newUser("bench");
  const source = await u.client.createSource({ component_code: TRIVIAL_SOURCE });
  const ack = await u.client.createSource({ component_code: ACK_SOURCE });
  const endpoint = (src: { configured_props: Record<string, unknown> }) => (src.configured_props.http as { endpoint_url: string }).endpoint_url;
  const sourceUrl = endpoint(source);
  const ackUrl = endpoint(ack);

  const post = async (url: string) => {
    const res = await fetch(url, { method: "POST", headers: { "content-type": "application/json" }, body: '{"n":1}' });
    await res.text();
    if (res.status !== 200) throw new Error(`${url} answered ${res.status}`);
  };

  return {
    cases: [
      { name: "bare node:http handler", run: () => post(bareUrl), iterations: 500, warmup: 50 },
      { name: "HTTP source invocation (custom response)", run: () => post(sourceUrl), iterations: 300, warmup: 30 },
      { name: "HTTP source request acknowledged (queued)", run: () => post(ackUrl), iterations: 300, warmup: 30 },
    ],
    ratios: [
      ["HTTP source invocation (custom response)", "bare node:http handler"],
      ["HTTP source request acknowledged (queued)", "bare node:http handler"],
    ],
    teardown: async () => {
      await s.stop();
      await new Promise<void>((resolve) => bare.close(() => resolve()));
    },
  };
});
