/**
 * Two server instances on one PostgreSQL database (issue 6's shape): an event appended on one
 * reaches SSE clients of the other through LISTEN/NOTIFY. Needs PostgreSQL.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Server } from "../../server/app.js";
import { testDatabases } from "../support/databases.js";
import { startSecondInstance, startServer, type TestServer, type TestUser } from "../support/server.js";
import { emitDirect, newSource } from "../events/fixtures.js";
import { openSse } from "./sse-reader.js";

const pg = testDatabases().find((d) => d.name === "postgres");

// Skipped without HEADWATER_TEST_DATABASE_URL: cross-instance delivery exists only on PostgreSQL.
describe.skipIf(!pg)("two instances on one PostgreSQL database", () => {
  let first: TestServer;
  let secondInstance: Awaited<ReturnType<typeof startSecondInstance>>;
  let second: Server;
  let alice: TestUser;

  beforeAll(async () => {
    first = await startServer({ db: pg! });
    secondInstance = await startSecondInstance(first);
    second = secondInstance.server;
    alice = await first.newUser();
  });
  afterAll(async () => {
    await secondInstance?.close();
    await first?.stop();
  });

  it("streams on instance 2 what is appended on instance 1, in order", async () => {
    const source = await newSource(alice);
    const stream = await openSse(`${second.url}/sources/${source}/sse`, { authorization: `Bearer ${alice.key}` });
    expect(stream.status).toBe(200);
    const ids = [
      ...(await emitDirect(first, alice, source, [{ n: 1 }, { n: 2 }])),
      ...(await emitDirect(first, alice, source, [{ n: 3 }])),
    ];
    const got = await stream.waitFor(3);
    expect(got.map((m) => m.id)).toEqual(ids);
    expect(JSON.parse(got[2]!.data)).toMatchObject({ event: { n: 3 } });
    stream.close();
  });

  it("ids stay strictly increasing when both instances append for one emitter at once", async () => {
    const source = await newSource(alice);
    const both = await Promise.all(
      [first.server, second].flatMap((s) =>
        Array.from({ length: 20 }, (_, i) => s.services.events.store.append([{ emitterId: source, ownerId: alice.user.id, channel: "", event: { i } }])),
      ),
    );
    const ids = both.flat().map((e) => e.id);
    expect(new Set(ids).size).toBe(40);
    expect((await alice.client.listSourceEvents(source, { limit: 100 })).page_info.total_count).toBe(40);
  });
});
