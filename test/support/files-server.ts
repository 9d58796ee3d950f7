/** A tiny static HTTP server for component_url tests: serves `files` by path, 404 otherwise. */
import http from "node:http";
import type { AddressInfo } from "node:net";

export interface FilesServer {
  url: string;
  /** Paths requested so far, in order. */
  requests: string[];
  close(): Promise<void>;
}

export async function serveFiles(
  files: Record<string, string | ((res: http.ServerResponse) => void)>,
): Promise<FilesServer> {
  const requests: string[] = [];
  const server = http.createServer((req, res) => {
    const path = (req.url ?? "/").split("?")[0]!;
    requests.push(path);
    const f = files[path];
    if (typeof f === "function") return f(res);
    if (f === undefined) {
      res.writeHead(404).end("not found");
      return;
    }
    res.writeHead(200, { "Content-Type": "application/javascript" }).end(f);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
