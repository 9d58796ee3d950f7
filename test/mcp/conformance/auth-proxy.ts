/**
 * The conformance suite connects without credentials (it has no option for a bearer key): this
 * proxy in front of `/mcp` adds the test user's key to every request and passes everything else
 * through untouched (Host and Origin too: the DNS-rebinding scenario sends its own), streaming
 * both ways.
 */
import http from "node:http";
import type { AddressInfo } from "node:net";

export interface AuthProxy {
  /** `http://127.0.0.1:<port>` */
  origin: string;
  /** Sends what arrives from now on to `target` (an origin), with `key`. */
  forward(target: string, key: string): void;
  close(): Promise<void>;
}

export async function startAuthProxy(): Promise<AuthProxy> {
  let target = "";
  let key = "";
  const server = http.createServer((req, res) => {
    if (!target) {
      res.writeHead(503).end();
      return;
    }
    const upstream = http.request(
      `${target}${req.url ?? "/"}`,
      { method: req.method, headers: { ...req.headers, authorization: `Bearer ${key}` } },
      (up) => {
        res.writeHead(up.statusCode ?? 502, up.headers);
        up.pipe(res);
      },
    );
    upstream.on("error", () => res.destroy());
    res.on("close", () => upstream.destroy());
    req.pipe(upstream);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    forward(t, k) {
      target = t;
      key = k;
    },
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
