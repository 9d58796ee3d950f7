/**
 * send_test_event's request from the CLI: to the endpoint URL the server handed out, over
 * node:http(s) (status, headers and body; the body is read up to a limit, as a tool's answer
 * never holds more than 64 KB anyway).
 */
import type { IncomingMessage } from "node:http";
import type { EndpointAnswer, EndpointRequest } from "../../shared/mcp/index.js";
import { nodeHttp, nodeHttps } from "../../shared/node-http.js";

/** Body bytes kept from the answer. */
const BODY_LIMIT = 256 * 1024;

export function sendToEndpoint(url: string, init: EndpointRequest): Promise<EndpointAnswer> {
  const target = new URL(url);
  const transport = target.protocol === "https:" ? nodeHttps : target.protocol === "http:" ? nodeHttp : undefined;
  if (!transport) return Promise.reject(new Error(`not an http(s) URL: ${url}`));
  const headers: Record<string, string | number> = { ...init.headers };
  if (init.body !== undefined) headers["content-length"] = Buffer.byteLength(init.body);
  return new Promise((resolve, reject) => {
    const req = transport.request(target, { method: init.method, headers, signal: init.signal }, (res: IncomingMessage) => {
      const chunks: Buffer[] = [];
      let size = 0;
      res.on("data", (c: Buffer) => {
        if (size < BODY_LIMIT) chunks.push(c);
        size += c.length;
      });
      res.on("error", reject);
      res.on("end", () => {
        const out: Record<string, string> = {};
        for (const [k, v] of Object.entries(res.headers)) if (v !== undefined) out[k] = Array.isArray(v) ? v.join(", ") : v;
        resolve({ status: res.statusCode ?? 0, headers: out, body: Buffer.concat(chunks).subarray(0, BODY_LIMIT).toString("utf8") });
      });
    });
    req.on("error", reject);
    req.end(init.body);
  });
}
