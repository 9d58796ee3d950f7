/**
 * The API's own overhead: an authenticated read, a paged list deep in a long list (keyset
 * pagination: should cost about what the first page costs), and a source write. Then what
 * `GET /metrics` costs: one scrape, and the authenticated read again while a scraper pulls
 * every 100 ms (150 times Prometheus's usual 15 s), as a ratio to the read without one.
 */
import { encodeCursor } from "../shared/ids.js";
import { timerComponent } from "../test/support/fixtures.js";
import { startServer } from "../test/support/server.js";
import { defineBench } from "./harness.js";

export default defineBench("API", async () => {
  const s = await startServer();
  const u = await s.newUser("bench");
  const component = await u.client.createComponent({ component_code: timerComponent() });
  const ids: string[] = [];
  for (let i = 0; i < 500; i++) ids.push((await u.client.createSource({ component_id: component.id })).id);
  const deep = encodeCursor(ids[50]!); // newest first: 449 items follow it
  let n = 0;
  const scrape = async () => {
    const r = await fetch(`${s.origin}/metrics`, { headers: { authorization: `Bearer ${s.adminKey}` } });
    await r.text();
  };
  let scraper: NodeJS.Timeout | undefined;
  return {
    cases: [
      { name: "GET /users/me", run: () => u.client.getMe() },
      { name: "GET /users/me/sources/ (first 10)", run: () => u.client.listMySources() },
      {
        name: "GET /users/me/sources/ (10, deep cursor)",
        run: () => u.client.listMySources({ after: deep }),
      },
      {
        name: "GET /users/me/sources/ (100)",
        run: () => u.client.listMySources({ limit: 100 }),
        iterations: 100,
      },
      {
        name: "PUT /sources/{id}",
        run: () =>
          u.client.updateSource(ids[n++ % ids.length]!, { component_id: component.id, active: n % 2 === 0 }),
        iterations: 100,
      },
      { name: "GET /metrics (one scrape)", run: scrape, iterations: 100 },
      {
        name: "GET /users/me (scraper every 100 ms)",
        run: () => {
          scraper ??= setInterval(() => void scrape(), 100);
          return u.client.getMe();
        },
      },
    ],
    ratios: [
      ["GET /users/me (scraper every 100 ms)", "GET /users/me"],
      ["GET /metrics (one scrape)", "GET /users/me"],
      ["GET /users/me/sources/ (10, deep cursor)", "GET /users/me/sources/ (first 10)"],
      ["GET /users/me/sources/ (first 10)", "GET /users/me"],
    ],
    teardown: () => {
      clearInterval(scraper);
      return s.stop();
    },
  };
});
