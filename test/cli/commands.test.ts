/**
 * Every one-shot command, through the real binary against a real server (SQLite): what it
 * prints for people, what `--json` prints (one JSON object per line), and what it changed.
 */
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { EventSummary, Source } from "../../shared/resources/index.js";
import { serveFiles } from "../support/files-server.js";
import { startServer, type TestServer, type TestUser } from "../support/server.js";
import { eventually, flags, ndjson, post, runCli, tempDir } from "./helpers.js";

const FIXTURES = path.join(import.meta.dirname, "fixtures");

describe("headwater commands", { timeout: 180_000 }, () => {
  let server: TestServer;
  let user: TestUser;
  let cwd: string;
  let hw: (...args: string[]) => ReturnType<typeof runCli>;

  beforeAll(async () => {
    // Private network allowed: the component URL test serves its files on loopback.
    server = await startServer({ env: { HEADWATER_SANDBOX_ALLOW_PRIVATE_NETWORK: "true" } });
    user = await server.newUser();
    cwd = tempDir();
    for (const f of ["http-echo.mjs", "label.mjs", "secret-props.mjs"]) fs.copyFileSync(path.join(FIXTURES, f), path.join(cwd, f));
    hw = (...args) => runCli([...flags(server.baseUrl, user.key), ...args], { cwd });
  });
  afterAll(async () => {
    await server?.stop();
  });

  const sourceNamed = async (name: string): Promise<Source | undefined> =>
    (await user.client.listMySources({ limit: 100 })).data.find((s) => s.name === name);

  it("whoami prints the user and server; --json one object without the key", async () => {
    const r = await hw("whoami");
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(new RegExp(`username\\s+${user.user.username}`));
    expect(r.stdout).toContain(server.baseUrl);
    const j = await hw("whoami", "--json");
    const [me] = ndjson(j.stdout) as Array<Record<string, unknown>>;
    expect(me).toMatchObject({ id: user.user.id, username: user.user.username, server: server.baseUrl });
    expect(me).not.toHaveProperty("api_key");
  });

  it("deploy creates a source from a file with relative imports, typed props, then updates it by name", async () => {
    const r = await hw("deploy", "http-echo.mjs", "--name", "echo", "--prop", "greeting=007", "--prop", "times=3");
    expect(r.code, r.stderr).toBe(0);
    const id = /created\s+(dc_\w+)/.exec(r.stdout)?.[1];
    expect(id).toBeDefined();
    const endpoint = /endpoint\s+(http\S+)/.exec(r.stdout)?.[1];
    expect(endpoint).toBe(`${server.origin}/e/${id}`);
    const created = await user.client.getSource(id!);
    // A string prop keeps "007" a string; an integer prop is a number.
    expect(created.configured_props).toMatchObject({ greeting: "007", times: 3 });
    await post(endpoint!, { n: 1 });
    const first = await eventually(async () => (await user.client.listSourceEvents(id!)).data[0], 30_000, "an event");
    // The bundle carried ./label.mjs.
    expect(first.event).toMatchObject({ label: "v1", greeting: "007", times: 3, n: 1 });

    // Same name again: the same source is updated (PUT), its other props kept.
    const again = await hw("deploy", "http-echo.mjs", "--name", "echo", "--prop", "greeting=hello", "--json");
    expect(again.code, again.stderr).toBe(0);
    const [row] = ndjson(again.stdout) as Array<Record<string, unknown>>;
    expect(row).toMatchObject({ id, created: false, endpoint_url: endpoint, name: "echo" });
    expect((await user.client.getSource(id!)).configured_props).toMatchObject({ greeting: "hello", times: 3 });
    expect((await user.client.listMySources()).data.filter((s) => s.name === "echo")).toHaveLength(1);
  });

  it("deploy <url> deploys a component_url (its relative imports fetched beside it)", async () => {
    const files = await serveFiles({
      "/c/echo.mjs": fs.readFileSync(path.join(FIXTURES, "http-echo.mjs"), "utf8"),
      "/c/label.mjs": 'export const label = "from-url";\n',
    });
    try {
      const r = await hw("deploy", `${files.url}/c/echo.mjs`, "--name", "by-url", "--prop", "greeting=u", "--json");
      expect(r.code, r.stderr).toBe(0);
      const [row] = ndjson(r.stdout) as Array<{ id: string; component_id: string; created: boolean }>;
      expect(row?.created).toBe(true);
      const component = await user.client.getComponent(row!.component_id);
      expect(component.component_url).toBe(`${files.url}/c/echo.mjs`);
      expect(files.requests).toContain("/c/label.mjs");
    } finally {
      await files.close();
    }
  });

  it("deploy --props-file reads prop values; --prop wins over it", async () => {
    fs.writeFileSync(path.join(cwd, "props.json"), JSON.stringify({ greeting: "from file", times: 5 }));
    const r = await hw("deploy", "http-echo.mjs", "--name", "filed", "--props-file", "props.json", "--prop", "times=6");
    expect(r.code, r.stderr).toBe(0);
    expect((await sourceNamed("filed"))?.configured_props).toMatchObject({ greeting: "from file", times: 6 });
  });

  it("credentials are masked in deploy, list and activate output (--json too); the server keeps them", async () => {
    const secrets = ["gho-secret-999", "hush-secret-42", "tok-secret-7"];
    const noSecret = (text: string) => {
      for (const v of secrets) expect(text).not.toContain(v);
    };
    const args = ["--name", "secretive", "--prop", "hush=hush-secret-42", "--prop", "apiToken=tok-secret-7", "--prop", "greeting=hello"];
    const deployed = await hw("deploy", "secret-props.mjs", ...args, "--prop", 'github={"oauth_access_token":"gho-secret-999"}', "--json");
    expect(deployed.code, deployed.stderr).toBe(0);
    noSecret(deployed.stdout);
    const [row] = ndjson(deployed.stdout) as Source[];
    const shown = {
      // The app's inline credential is kept by the server as a connected account: the source
      // holds its reference, an id that is shown as it is.
      github: { authProvisionId: expect.stringMatching(/^apn_\w+$/) },
      hush: "••••", // declared secret: true
      apiToken: "••••", // a name that looks secret
      greeting: "hello",
    };
    expect(row!.configured_props).toMatchObject(shown);
    // Masked in what is printed only: the source runs with the real values.
    const github = row!.configured_props.github as { authProvisionId: string };
    expect((await user.client.getSource(row!.id)).configured_props).toMatchObject({
      github,
      hush: "hush-secret-42",
      apiToken: "tok-secret-7",
    });
    expect((await user.client.getAccount(github.authProvisionId)).fields).toEqual(["oauth_access_token"]);

    const table = await hw("deploy", "secret-props.mjs", ...args);
    expect(table.code, table.stderr).toBe(0);
    noSecret(table.stdout);
    const listed = await hw("list", "sources", "--json");
    expect(listed.code, listed.stderr).toBe(0);
    noSecret(listed.stdout);
    expect((ndjson(listed.stdout) as Source[]).find((s) => s.id === row!.id)?.configured_props).toMatchObject(shown);
    noSecret((await hw("list", "sources")).stdout);
    const activated = await hw("activate", "secretive", "--json");
    expect(activated.code, activated.stderr).toBe(0);
    noSecret(activated.stdout);
    expect((ndjson(activated.stdout)[0] as Source).configured_props).toMatchObject(shown);
    await user.client.deleteSource(row!.id);
  });

  it("list sources|components|subscriptions|workflows: aligned tables, --limit, --json line by line", async () => {
    // 12 more sources, to have rows to align and to limit.
    for (let i = 0; i < 12; i++) {
      await user.client.createSource({ component_code: fs.readFileSync(path.join(FIXTURES, "http-echo.mjs"), "utf8").replace('import { label } from "./label.mjs";', 'const label = "inline";'), name: `bulk-${i}`, configured_props: { greeting: "x" } });
    }
    await user.client.createWorkflow({ name: "wf-cli", steps: [{ code: "export default defineComponent({ async run() { return 1 } })" }] });
    const all = await user.client.listMySources({ limit: 100 });

    const table = await hw("list", "sources");
    expect(table.code, table.stderr).toBe(0);
    const lines = table.stdout.trim().split("\n");
    expect(lines[0]).toMatch(/^ID\s+NAME\s+ACTIVE\s+COMPONENT\s+UPDATED$/);
    expect(lines).toHaveLength(all.page_info.total_count + 1);
    // Aligned: the NAME column starts at the same offset on every line.
    const at = lines[0]!.indexOf("NAME");
    for (const l of lines.slice(1)) expect(l.slice(at - 2, at)).toBe("  ");

    const json = await hw("list", "sources", "--json");
    const rows = ndjson(json.stdout) as Source[];
    expect(rows.map((s) => s.id).sort()).toEqual(all.data.map((s) => s.id).sort());

    const limited = await hw("list", "sources", "--limit", "3", "--json");
    expect(ndjson(limited.stdout).map((s) => (s as Source).id)).toEqual(all.data.slice(0, 3).map((s) => s.id));

    const comps = ndjson((await hw("list", "components", "--json")).stdout) as Array<Record<string, unknown>>;
    expect(comps.length).toBeGreaterThanOrEqual(14);
    expect(comps[0]).not.toHaveProperty("code");
    const wfs = ndjson((await hw("list", "workflows", "--json")).stdout) as Array<Record<string, unknown>>;
    expect(wfs.map((w) => w.name)).toEqual(["wf-cli"]);
    const subs = await hw("list", "subscriptions");
    expect(subs.code).toBe(0);
  });

  it("list follows every page: 105 components are 2 pages of the API, all listed", async () => {
    const many = await server.newUser();
    // One code saved 105 times (a key may have many versions): the server describes it once,
    // where 105 different codes would start 105 sandbox processes (two minutes of a 2-core CI).
    const code = `export default { key: "many", name: "Many", version: "1.0.0", async run() {} };`;
    const created: string[] = [];
    for (let batch = 0; batch < 105; batch += 15) {
      const saved = await Promise.all(Array.from({ length: 15 }, () => many.client.createComponent({ component_code: code })));
      created.push(...saved.map((c) => c.id));
    }
    const r = await runCli([...flags(server.baseUrl, many.key), "list", "components", "--json"]);
    expect(r.code, r.stderr).toBe(0);
    const ids = (ndjson(r.stdout) as Array<{ id: string }>).map((c) => c.id);
    expect(ids).toHaveLength(105);
    expect(new Set(ids)).toEqual(new Set(created));
  });

  it("subscribe / unsubscribe by names and ids, --channel, --auto", async () => {
    const sub = await hw("subscribe", "bulk-0", "bulk-1", "--channel", "$errors");
    expect(sub.code, sub.stderr).toBe(0);
    const emitter = (await sourceNamed("bulk-0"))!.id;
    const listener = (await sourceNamed("bulk-1"))!.id;
    expect(sub.stdout).toContain(`subscribed ${listener} to ${emitter} ($errors)`);
    let subs = await user.client.listMySubscriptions();
    expect(subs.some((s) => s.emitter_id === emitter && s.listener_id === listener && s.event_name === "$errors")).toBe(true);

    const listed = ndjson((await hw("list", "subscriptions", "--json")).stdout) as Array<Record<string, unknown>>;
    expect(listed).toContainEqual(expect.objectContaining({ emitter_id: emitter, listener_id: listener, event_name: "$errors" }));

    const un = await hw("unsubscribe", emitter, "bulk-1", "--channel", "$errors");
    expect(un.code, un.stderr).toBe(0);
    subs = await user.client.listMySubscriptions();
    expect(subs.some((s) => s.emitter_id === emitter && s.listener_id === listener && s.event_name === "$errors")).toBe(false);

    const auto = await hw("subscribe", "--auto", "alerts", "bulk-1", "--json");
    expect(auto.code, auto.stderr).toBe(0);
    expect(ndjson(auto.stdout)[0]).toMatchObject({ listener_id: listener, event_name: "alerts" });
  });

  it("deactivate / activate / delete a source by name", async () => {
    const off = await hw("deactivate", "bulk-2");
    expect(off.code, off.stderr).toBe(0);
    expect(off.stdout).toMatch(/^deactivated dc_\w+ \(bulk-2\)$/m);
    const id = (await sourceNamed("bulk-2"))!.id;
    expect((await user.client.getSource(id)).active).toBe(false);
    const on = await hw("activate", id, "--json");
    expect(on.code, on.stderr).toBe(0);
    expect(ndjson(on.stdout)[0]).toMatchObject({ id, active: true });
    expect((await user.client.getSource(id)).active).toBe(true);
    const del = await hw("delete", "bulk-2");
    expect(del.code, del.stderr).toBe(0);
    expect(del.stdout).toContain(`deleted ${id} (bulk-2)`);
    expect(await sourceNamed("bulk-2")).toBeUndefined();
  });

  it("events -n, --json, --channel, logs, and events delete --from --to", async () => {
    const source = (await sourceNamed("echo"))!;
    const endpoint = `${server.origin}/e/${source.id}`;
    for (let n = 2; n <= 5; n++) await post(endpoint, { n });
    const events = await eventually(async () => {
      const page = await user.client.listSourceEvents(source.id, { limit: 100 });
      return page.data.length >= 5 ? page.data : undefined;
    }, 30_000, "5 events");

    const r = await hw("events", "echo", "-n", "3");
    expect(r.code, r.stderr).toBe(0);
    const lines = r.stdout.trim().split("\n");
    expect(lines).toHaveLength(3);
    // Oldest first, each with its id and summary.
    expect(lines.map((l) => /#(\d)/.exec(l)?.[1])).toEqual(["3", "4", "5"]);
    expect(lines[2]).toContain(events[0]!.id);

    const j = ndjson((await hw("events", source.id, "-n", "2", "--json")).stdout) as EventSummary[];
    expect(j.map((e) => (e.event as { n: number }).n)).toEqual([4, 5]);

    const logs = await hw("logs", "echo", "-n", "2");
    expect(logs.code, logs.stderr).toBe(0);
    expect(logs.stdout).toMatch(/log request 4\n.*log request 5\n$/);
    const logsViaChannel = ndjson((await hw("events", "echo", "--channel", "$logs", "-n", "1", "--json")).stdout) as EventSummary[];
    expect(logsViaChannel[0]?.event).toMatchObject({ message: "request 5" });

    // Delete the two oldest of the last five.
    const oldestFirst = [...events].reverse();
    const del = await hw("events", "delete", "echo", "--from", oldestFirst[0]!.id, "--to", oldestFirst[1]!.id);
    expect(del.code, del.stderr).toBe(0);
    await eventually(async () => {
      const ids = (await user.client.listSourceEvents(source.id, { limit: 100 })).data.map((e) => e.id);
      return ids.includes(oldestFirst[0]!.id) || ids.includes(oldestFirst[1]!.id) ? undefined : true;
    }, 10_000, "the deleted events to go");
    const after = ndjson((await hw("events", "echo", "-n", "100", "--json")).stdout) as EventSummary[];
    expect(after.map((e) => e.id)).toEqual(oldestFirst.slice(2).map((e) => e.id));

    // An error of the source: its code and message on the $errors line.
    await post(endpoint, { n: 6, fail: true });
    const errors = await eventually(async () => {
      const r = await hw("events", "echo", "--channel", "$errors", "-n", "1");
      return r.stdout.trim() !== "" ? r : undefined;
    }, 30_000, "an $errors event");
    expect(errors.stdout).toMatch(/^\d\d:\d\d:\d\d \d+-\d+ error COMPONENT_ERROR: asked to fail 6$/m);
  });
});
