/** Pagination of resource lists (decisions.md, Lists and cursors), on /users/me/sources/. */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { encodeCursor } from "../../shared/ids.js";
import { pages } from "../../shared/client/index.js";
import type { Source } from "../../shared/resources/index.js";
import { testDatabases } from "../support/databases.js";
import { expectApiError, rawRequest, timerComponent } from "../support/fixtures.js";
import { startServer, type TestServer, type TestUser } from "../support/server.js";

describe.each(testDatabases())("pagination on $name", (db) => {
  let s: TestServer;
  let u: TestUser;
  /** Newest first, as the list returns them. */
  let all: Source[];

  beforeAll(async () => {
    s = await startServer({ db });
    u = await s.newUser();
    const c = await u.client.createComponent({ component_code: timerComponent() });
    const made: Source[] = [];
    for (let i = 0; i < 23; i++)
      made.push(await u.client.createSource({ component_id: c.id, name: `s${i}` }));
    all = made.reverse();
  });
  afterAll(() => s?.stop());

  const ids = (xs: Array<{ id: string }>) => xs.map((x) => x.id);

  it("defaults to 10 items, newest first, with page_info", async () => {
    const p = await u.client.listMySources();
    expect(ids(p.data)).toEqual(ids(all.slice(0, 10)));
    expect(p.page_info).toEqual({
      total_count: 23,
      count: 10,
      start_cursor: encodeCursor(all[0]!.id),
      end_cursor: encodeCursor(all[9]!.id),
    });
  });

  it("walks forward with after and back with before, without gaps or repeats", async () => {
    const forward: string[] = [];
    const starts: string[] = [];
    let after: string | undefined;
    for (;;) {
      const p = await u.client.listMySources({ limit: 5, after });
      forward.push(...ids(p.data));
      if (p.page_info.start_cursor) starts.push(p.page_info.start_cursor);
      if (p.data.length < 5) break;
      after = p.page_info.end_cursor!;
    }
    expect(forward).toEqual(ids(all));

    const backward: string[] = [];
    let before: string | undefined = encodeCursor(all[all.length - 1]!.id);
    for (;;) {
      const p = await u.client.listMySources({ limit: 5, before });
      backward.unshift(...ids(p.data));
      if (p.data.length < 5) break;
      before = p.page_info.start_cursor!;
    }
    expect(backward).toEqual(ids(all.slice(0, -1)));
  });

  it("before returns the page just above the cursor, still newest first", async () => {
    const p = await u.client.listMySources({ limit: 3, before: encodeCursor(all[10]!.id) });
    expect(ids(p.data)).toEqual(ids(all.slice(7, 10)));
    const top = await u.client.listMySources({ limit: 3, before: encodeCursor(all[0]!.id) });
    expect(top.data).toEqual([]);
    expect(top.page_info).toMatchObject({ count: 0, total_count: 23, start_cursor: null, end_cursor: null });
  });

  it("after and before together bound the page on both sides", async () => {
    const p = await u.client.listMySources({
      limit: 100,
      after: encodeCursor(all[2]!.id),
      before: encodeCursor(all[6]!.id),
    });
    expect(ids(p.data)).toEqual(ids(all.slice(3, 6)));
  });

  it("the page iterator of the client reads everything", async () => {
    const seen: string[] = [];
    for await (const src of pages((q) => u.client.listMySources(q), 7)) seen.push(src.id);
    expect(seen).toEqual(ids(all));
  });

  it("limit must be an integer in 1..100", async () => {
    for (const limit of ["0", "101", "-1", "abc", "2.5"]) {
      const r = await rawRequest(`${s.baseUrl}/users/me/sources/?limit=${limit}`, { key: u.key });
      expect(r.status, limit).toBe(400);
      expect(r.body).toMatchObject({ code: "validation_failed" });
    }
    expect((await u.client.listMySources({ limit: 100 })).data).toHaveLength(23);
    expect((await u.client.listMySources({ limit: 1 })).data).toHaveLength(1);
  });

  it("garbage cursors, and cursors of items not in this list, are 400 bad_cursor", async () => {
    await expectApiError(u.client.listMySources({ after: "!!!" }), 400, "bad_cursor");
    await expectApiError(u.client.listMySources({ before: "bm90IGFuIGlk" }), 400, "bad_cursor");
    await expectApiError(
      u.client.listMySources({ after: encodeCursor("dc_doesnotexist") }),
      400,
      "bad_cursor",
    );
    const other = await s.newUser();
    const theirs = await other.client.createSource({ component_code: timerComponent() });
    await expectApiError(u.client.listMySources({ after: encodeCursor(theirs.id) }), 400, "bad_cursor");
  });

  it("include / exclude apply to each item and leave page_info alone", async () => {
    const r = await rawRequest(`${s.baseUrl}/users/me/sources/?limit=2&include=id,name`, { key: u.key });
    expect(r.body).toEqual({
      page_info: {
        total_count: 23,
        count: 2,
        start_cursor: expect.any(String),
        end_cursor: expect.any(String),
      },
      data: [
        { id: all[0]!.id, name: all[0]!.name },
        { id: all[1]!.id, name: all[1]!.name },
      ],
    });
  });
});
