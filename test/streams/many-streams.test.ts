/** Hundreds of open streams in one process: every one gets every event of its source. */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServer, type TestServer, type TestUser } from "../support/server.js";
import { emitDirect, newSource } from "../events/fixtures.js";
import { openSse, type SseReader } from "./sse-reader.js";

describe("many SSE streams", () => {
  let srv: TestServer;
  let alice: TestUser;
  const readers: SseReader[] = [];

  beforeAll(async () => {
    srv = await startServer();
    alice = await srv.newUser();
  });
  afterAll(async () => {
    for (const r of readers) r.close();
    await srv?.stop();
  });

  it("serves 300 concurrent streams over 3 sources", async () => {
    const sources = [await newSource(alice), await newSource(alice), await newSource(alice)];
    for (let i = 0; i < 300; i++) {
      readers.push(await openSse(`${srv.origin}/sources/${sources[i % 3]}/sse`, { authorization: `Bearer ${alice.key}` }));
    }
    expect(readers.every((r) => r.status === 200)).toBe(true);
    const ids = [];
    for (const s of sources) ids.push(await emitDirect(srv, alice, s, [{ s, n: 1 }, { s, n: 2 }]));
    for (let i = 0; i < 300; i++) {
      expect((await readers[i]!.waitFor(2)).map((m) => m.id)).toEqual(ids[i % 3]);
    }
    expect(srv.server.services.events.bus.listenerCount(sources[0]!)).toBe(100);
  });
});
