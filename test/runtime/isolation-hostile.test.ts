/**
 * Hostile components against a running server, in both isolation modes, as a user sees it: the
 * events and `$errors` of their sources, `/healthz`. Two users' sources run at the same time and
 * see nothing of each other; the server's own port (in the forms the issue found open) and the
 * database's files are out of reach. Namespaces mode is skipped, saying why, without bwrap.
 */
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bwrapWorks } from "../../server/runtime/sandbox/isolation.js";
import { startServer, type TestServer, type TestUser } from "../support/server.js";
import { fixture, hit, waitForEvents } from "./helpers.js";

const bwrap = bwrapWorks();
if (!bwrap.works) console.log(`isolation-hostile: namespaces mode skipped: ${bwrap.why}`);

describe.each(["process", "namespaces"] as const)("hostile neighbours, %s mode", (isolation) => {
  const skip = isolation === "namespaces" && !bwrap.works;
  let s: TestServer;
  let alice: TestUser;
  let bob: TestUser;
  const sources: Record<string, { id: string; url: string }> = {};

  beforeAll(async () => {
    if (skip) return;
    s = await startServer({
      env: { HEADWATER_SANDBOX_ISOLATION: isolation, HEADWATER_INVOCATION_TIMEOUT_MS: "20000" },
    });
    alice = await s.newUser();
    bob = await s.newUser();
    for (const [name, user] of [
      ["alice", alice],
      ["bob", bob],
    ] as const) {
      const src = await user.client.createSource({ component_code: fixture("neighbours.mjs") });
      sources[name] = {
        id: src.id,
        url: (src.configured_props.http as { endpoint_url: string }).endpoint_url,
      };
    }
  }, 60_000);
  afterAll(async () => {
    await s?.stop();
  });

  it.skipIf(skip)("reports the mode at /healthz", async () => {
    const res = await hit(`${s.origin}/healthz`);
    expect(res.json).toEqual({ ok: true, sandbox: { isolation } });
  });

  it.skipIf(skip)(
    "runs two users' sources at once, neither seeing the other's files, the server's environment or the database",
    async () => {
      const sandboxRoot = path.join(s.dataDir, "sandbox");
      expect((await hit(sources.bob!.url, { body: { keep: "bob's secret", forMs: 15_000 } })).status).toBe(200);
      // Where bob's run keeps its secret, as the host sees it.
      let secretFile: string | undefined;
      const deadline = Date.now() + 20_000;
      while (!secretFile && Date.now() < deadline) {
        for (const dir of fs.existsSync(sandboxRoot) ? fs.readdirSync(sandboxRoot) : []) {
          const f = path.join(sandboxRoot, dir, "secret.txt");
          if (fs.existsSync(f)) secretFile = f;
        }
        if (!secretFile) await new Promise((r) => setTimeout(r, 50));
      }
      expect(secretFile).toBeDefined();
      const files = [secretFile!, `/proc/${process.pid}/environ`, path.join(s.dataDir, "headwater.db")];
      expect((await hit(sources.alice!.url, { body: { read: files, list: sandboxRoot } })).status).toBe(200);
      const [seen] = await waitForEvents(alice.client, sources.alice!.id, "", 1, 30_000);
      const { read, listing } = seen!.event as { read: Record<string, string>; listing: string[] | string };
      for (const f of files) expect(read[f], f).not.toMatch(/^read /);
      // Bob's run still held its secret when alice's run looked: now it may end.
      expect(fs.existsSync(secretFile!)).toBe(true);
      fs.writeFileSync(path.join(path.dirname(secretFile!), "release"), "");
      // The permission model refuses the listing first (in namespaces mode only its own dir is
      // mounted there anyway: isolation-sandbox.test.ts shows it without the permission model).
      expect(listing).toMatch(/Access to this API has been restricted/);
      const [kept] = await waitForEvents(bob.client, sources.bob!.id, "", 1, 30_000);
      expect(kept!.event).toEqual({ kept: "bob's secret", released: true });
    },
    60_000,
  );

  it.skipIf(skip)(
    "cannot reach the server's own port by its IPv4-mapped forms, nor over HTTP/2 on [::1]",
    async () => {
      const port = Number(new URL(s.origin).port);
      const urls = [
        `http://[::ffff:127.0.0.1]:${port}/healthz`,
        `http://[::ffff:7f00:1]:${port}/healthz`,
        `http://[::ffff:a9fe:a9fe]/`,
      ];
      await hit(sources.alice!.url, { body: { fetch: urls, http2: `http://[::1]:${port}` } });
      const events = await waitForEvents(alice.client, sources.alice!.id, "", 2, 30_000);
      const out = events[1]!.event as Record<string, string>;
      expect(Object.keys(out)).toHaveLength(4);
      for (const [what, result] of Object.entries(out))
        expect(result, what).toMatch(/is not allowed from a component: (loopback|link-local) address/);
    },
    60_000,
  );

  it.skipIf(skip)(
    "records a refused connection on $errors, and the source keeps working",
    async () => {
      await hit(sources.alice!.url, { body: { connect: { host: "::ffff:7f00:1", port: 5432 } } });
      const [error] = await waitForEvents(alice.client, sources.alice!.id, "$errors", 1, 30_000);
      expect(error!.event).toMatchObject({
        error: {
          code: "COMPONENT_ERROR",
          message: "network access to ::ffff:7f00:1:5432 is not allowed from a component: loopback address",
        },
      });
      expect((await hit(`${s.origin}/healthz`)).status).toBe(200);
    },
    60_000,
  );
});
