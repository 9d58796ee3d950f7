/** The stream module without the API: heartbeat comments and the pending-events bound. */
import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { LocalEventBus } from "../../server/events/bus.js";
import { createEventStore, type ManagedEventStore } from "../../server/events/event-store.js";
import { HANDSHAKE, runEventStream } from "../../server/streams/event-stream.js";
import { tempDb } from "../events/helpers.js";
import { openSse } from "./sse-reader.js";

describe("event stream", () => {
  let db: Awaited<ReturnType<typeof tempDb>>;
  let bus: LocalEventBus;
  let store: ManagedEventStore;
  let server: http.Server;
  let url: string;

  beforeEach(async () => {
    db = await tempDb();
    bus = new LocalEventBus();
    store = createEventStore({ db: db.db, bus, retention: 100 });
    server = http.createServer((req, res) => {
      res.writeHead(200, { "content-type": "text/event-stream" });
      res.write(HANDSHAKE);
      const after = new URL(req.url!, "http://x").searchParams.get("after") ?? undefined;
      runEventStream(res, { db: db.db, bus, emitterId: "dc_s", channels: [""], afterSortKey: after, heartbeatMs: 50 });
    });
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
  });
  afterEach(async () => {
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
    await store.close();
    await db.close();
  });

  it("sends a handshake comment at the configured period", async () => {
    const r = await openSse(url);
    await new Promise((res) => setTimeout(res, 300));
    expect(r.comments.filter((c) => c === "sse-handshake").length).toBeGreaterThanOrEqual(3);
    r.close();
  });

  it("stops following the emitter once the client goes away", async () => {
    const r = await openSse(url);
    await store.append([{ emitterId: "dc_s", ownerId: "u_1", channel: "", event: 1 }]);
    await r.waitFor(1);
    expect(bus.listenerCount("dc_s")).toBe(1);
    r.close();
    for (let i = 0; i < 50 && bus.listenerCount("dc_s") > 0; i++) await new Promise((res) => setTimeout(res, 20));
    expect(bus.listenerCount("dc_s")).toBe(0);
  });
});
