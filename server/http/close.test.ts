import net from "node:net";
import { describe, expect, it } from "vitest";
import { loadConfig } from "../config.js";
import { closeGracefully, createHttpApp } from "./app.js";
import { route } from "./route.js";

/** Opens a raw connection; resolves once connected. `closed` resolves when the server ends it. */
function connect(port: number): Promise<{ socket: net.Socket; closed: Promise<void>; received: () => string }> {
  return new Promise((resolve, reject) => {
    let text = "";
    const socket = net.connect(port, "127.0.0.1");
    const closed = new Promise<void>((done) => socket.once("close", () => done()));
    socket.setEncoding("utf8").on("data", (c: string) => (text += c));
    socket.once("error", () => undefined);
    socket.once("connect", () => resolve({ socket, closed, received: () => text }));
    socket.once("error", reject);
  });
}

/**
 * A stop waits for requests in flight and for nothing else. The grace period is an hour here:
 * a connection the stop waited for would hang the test until it times out.
 */
describe("closeGracefully", () => {
  it("lets a request in flight finish, and cuts connections that are idle or never sent a request", async () => {
    const app = createHttpApp(loadConfig({ HEADWATER_LOG_LEVEL: "silent" }));
    let release!: () => void;
    const released = new Promise<void>((r) => (release = r));
    let arrived!: () => void;
    const slowArrived = new Promise<void>((r) => (arrived = r));
    route(app, { method: "GET", url: "/slow", summary: "waits", auth: "none" }, async () => {
      arrived();
      await released;
      return { data: "done" };
    });
    route(app, { method: "GET", url: "/quick", summary: "answers", auth: "none" }, async () => ({ data: "ok" }));
    await app.listen({ host: "127.0.0.1", port: 0 });
    const port = (app.server.address() as net.AddressInfo).port;

    // A keep-alive connection that sent one request and then waits, one that never sent any
    // (as an HTTP client's spare connection does), and a request still running.
    const idle = await connect(port);
    idle.socket.write("GET /quick HTTP/1.1\r\nhost: x\r\n\r\n");
    await expect.poll(() => idle.received()).toContain('"ok"');
    const unused = await connect(port);
    const busy = await connect(port);
    busy.socket.write("GET /slow HTTP/1.1\r\nhost: x\r\n\r\n");
    await slowArrived;

    const closing = closeGracefully(app, 3_600_000);
    await Promise.all([idle.closed, unused.closed]);
    expect(unused.received()).toBe("");
    expect(busy.socket.destroyed).toBe(false);
    release();
    await closing;
    expect(busy.received()).toMatch(/^HTTP\/1\.1 200/);
    expect(busy.received()).toContain('"done"');
  });
});
