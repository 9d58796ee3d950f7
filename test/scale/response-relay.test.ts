/**
 * Custom HTTP responses between instances: the instance that ran the job relays `respond` (or
 * "ended without one") to the instance holding the request, through PostgreSQL NOTIFY, whatever
 * the response's size.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PgResponseRelay } from "../../server/cluster/response-relay.js";
import type { HttpResponse } from "../../server/runtime/invoke.js";
import { Responders } from "../../server/runtime/triggers/http.js";
import { openDb, type OpenedDb } from "../../server/store/db.js";
import type { FreshDatabase } from "../support/databases.js";
import { tempDataDir } from "../support/server.js";
import { postgresForScale } from "./cluster.js";

const pgDb = postgresForScale();

// Skipped (with the notice printed by postgresForScale) when HEADWATER_TEST_DATABASE_URL is unset.
describe.skipIf(!pgDb)("HTTP responses relayed between instances", () => {
  let fresh: FreshDatabase;
  const dbs: OpenedDb[] = [];
  const relays: PgResponseRelay[] = [];
  /** [holder, runner]: each with its own pool, relay and responders, as two instances. */
  const nodes: Responders[] = [];
  const log = { warn: () => undefined };

  beforeAll(async () => {
    fresh = await pgDb!.create();
    for (let i = 0; i < 2; i++) {
      const opened = await openDb({ databaseUrl: fresh.databaseUrl, dataDir: tempDataDir() });
      dbs.push(opened);
      const relay = await PgResponseRelay.start({ pool: opened.pgPool!, log });
      relays.push(relay);
      const responders = new Responders(relay);
      relay.onReceive((key, r) => responders.deliver(key, r));
      nodes.push(responders);
    }
  });
  afterAll(async () => {
    for (const r of relays) await r.close();
    for (const d of dbs) await d.close();
    await fresh?.drop();
  });

  it("carries a large response with multi-byte text whole, and only the first respond", async () => {
    const [holder, runner] = nodes as [Responders, Responders];
    const body = { text: "héllo wörld ✓ 🌊 ".repeat(4000), n: 42 };
    const waiting = holder.wait("key-large", 10_000);
    runner.respond("key-large", { status: 201, headers: { "x-a": "1" }, body });
    runner.respond("key-large", { status: 500, headers: {}, body: "ignored" });
    runner.finish("key-large");
    const got = (await waiting) as HttpResponse;
    expect(got).toEqual({ status: 201, headers: { "x-a": "1" }, body });
  });

  it("a run that ends without responding releases the waiting request (504 there)", async () => {
    const [holder, runner] = nodes as [Responders, Responders];
    const waiting = holder.wait("key-none", 10_000);
    runner.finish("key-none");
    expect(await waiting).toBeUndefined();
  });
});
