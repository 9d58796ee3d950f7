/**
 * The CLI's API requests over node:http (node:https for https URLs), not Node's global `fetch`.
 *
 * Node's `fetch` is undici, loaded on first use: in a short command that load was the largest
 * single cost of all, about 0.2 s of CPU and 40 MB of memory on top of a bare `node -e 0`
 * (measured on Node 20), more than the CLI's own code. A request/response call needs none of it.
 * Streaming (`events -f`, `dev`) still uses `fetch` through the SSE client.
 */
import { createRequire } from "node:module";
import type http from "node:http";
import type { FetchLike } from "../../shared/client/index.js";

type Transport = Pick<typeof http, "request" | "Agent">;

// One kept-alive connection per server for the few requests of a command.
const agents = new Map<Transport, http.Agent>();

// Required, not imported: on Node 24 an ESM import of node:http builds the module's ESM facade,
// which reads every export, and its WebSocket getters load undici after all: 70 ms more for
// `node -e 'await import("node:http")'` than for require (hyperfine, 20 runs; none on Node 20).
const require = createRequire(import.meta.url);

function transportFor(protocol: string): Transport {
  if (protocol === "http:") return require("node:http") as typeof http;
  if (protocol === "https:") return require("node:https") as typeof http;
  throw new TypeError(`unsupported protocol ${protocol}`);
}

export const httpFetch: FetchLike = async (url, init) => {
  const transport = transportFor(url.protocol);
  let agent = agents.get(transport);
  if (!agent) agents.set(transport, (agent = new transport.Agent({ keepAlive: true })));
  const headers: Record<string, string | number> = { ...init.headers };
  if (init.body !== undefined) headers["Content-Length"] = Buffer.byteLength(init.body);
  return new Promise((resolve, reject) => {
    const req = transport.request(url, { method: init.method, headers, agent, signal: init.signal }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (c: Buffer) => chunks.push(c));
      res.on("error", reject);
      res.on("end", () => {
        const status = res.statusCode ?? 0;
        const text = Buffer.concat(chunks).toString("utf8");
        resolve({ ok: status >= 200 && status < 300, status, text: async () => text });
      });
    });
    req.on("error", reject);
    req.end(init.body);
  });
};
