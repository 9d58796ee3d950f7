/**
 * The format of workflow.yaml: the JSON Schema the server publishes (no key needed) accepts what
 * `workflows pull` writes, and a JSON Schema validator other than the CLI's refuses what the CLI
 * refuses; the CLI names the file, line and field of a wrong trigger; schedules and endpoint
 * auth go through pull and push as the server has them (the token never in a file).
 */
import fs from "node:fs";
import path from "node:path";
import { Ajv2020 } from "ajv/dist/2020.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parse } from "yaml";
import type { Workflow, WorkflowFile } from "../../shared/resources/index.js";
import { workflowFiles } from "../../cli/workflows/files.js";
import { comparableTriggers, triggerFields } from "../../cli/workflows/triggers.js";
import { startServer, type TestServer, type TestUser } from "../support/server.js";
import { flags, oneLine, runCli, tempDir } from "./helpers.js";

const CODE = `export default defineComponent({ async run() { return 1; } });\n`;

describe("the workflow file's schema", { timeout: 120_000 }, () => {
  let server: TestServer;
  let user: TestUser;
  const cli = (args: string[], env?: Record<string, string>) =>
    runCli([...flags(server.baseUrl, user.key), ...args], { env });

  beforeAll(async () => {
    server = await startServer();
    user = await server.newUser();
  });
  afterAll(async () => {
    await server?.stop();
  });

  it("is published without a key, names itself, accepts a pulled file and refuses a wrong one", async () => {
    const url = `${server.baseUrl}/schemas/workflow-file.json`;
    const res = await fetch(url);
    expect(res.status).toBe(200);
    const schema = (await res.json()) as Record<string, unknown>;
    expect(schema).toMatchObject({
      $schema: "https://json-schema.org/draft/2020-12/schema",
      $id: url,
      title: "Headwater workflow.yaml",
      type: "object",
    });

    const wf = await user.client.createWorkflow({
      name: "shaped",
      concurrency: 2,
      steps: [{ name: "a", code: CODE }],
    });
    const dir = tempDir();
    expect((await cli(["workflows", "pull", wf.id, dir])).code).toBe(0);
    const text = fs.readFileSync(path.join(dir, "workflow.yaml"), "utf8");
    // Editors that read YAML find the schema from the file itself.
    expect(text.split("\n")[2]).toBe(`# yaml-language-server: $schema=${url}`);

    const validate = new Ajv2020({ strict: false }).compile(schema);
    expect(validate(parse(text)), JSON.stringify(validate.errors)).toBe(true);
    const triggers = {
      schedules: [{ cron: "0 9 * * 1-5", timezone: "Europe/Paris" }, { interval_seconds: 60 }],
      http_auth: { type: "bearer" },
    };
    expect(validate({ ...parse(text), ...triggers })).toBe(true);
    for (const wrong of [
      { concurrency: 0 },
      { steps: [{ name: "a" }] },
      { steps: [{ name: "a", file: "../a.mjs" }] },
      { schedules: [{ cron: "* * *" }] },
      { schedules: Array.from({ length: 11 }, () => ({ interval_seconds: 5 })) },
      { http_auth: { type: "bearer", token: "in the file" } },
      { extra: true },
    ])
      expect(validate({ ...parse(text), ...wrong }), JSON.stringify(wrong)).toBe(false);
  });

  it("the CLI says which file, line and field of a trigger is wrong, and needs a token from the environment for a new bearer", async () => {
    const dir = tempDir();
    const yaml = (extra: string) =>
      fs.writeFileSync(
        path.join(dir, "workflow.yaml"),
        `name: timed\n${extra}steps:\n  - name: a\n    file: a.mjs\n`,
      );
    fs.writeFileSync(path.join(dir, "a.mjs"), CODE);
    const file = path.join(dir, "workflow.yaml");

    yaml("schedules:\n  - cron: '* * *'\n");
    const cron = await cli(["workflows", "push", dir]);
    expect(cron.code).toBe(2);
    expect(oneLine(cron.stderr)).toBe(
      `headwater: ${file} line 3: schedules.0.cron: a cron expression has five fields: minute hour day month weekday`,
    );

    yaml("schedules:\n  - interval_seconds: 60\n  - every: day\n");
    expect(oneLine((await cli(["workflows", "push", dir])).stderr)).toBe(
      `headwater: ${file} line 4: schedules.1: a schedule has \`cron\` (five fields, and \`timezone\` if not UTC) or \`interval_seconds\``,
    );
    yaml("schedules:\n  - cron: '0 9 * * *'\n    timezone: Mars/Olympus\n");
    expect(oneLine((await cli(["workflows", "push", dir])).stderr)).toBe(
      `headwater: ${file} line 4: schedules.0.timezone: not a known time zone (an IANA name such as Europe/Paris)`,
    );
    yaml("http_auth:\n  type: bearer\n  token: s3cret\n");
    expect(oneLine((await cli(["workflows", "push", dir])).stderr)).toBe(
      `headwater: ${file} line 3: http_auth: the token is never written in the file: token_env names an environment variable that holds it`,
    );
    yaml("http_auth:\n  type: bearer\n");
    expect(oneLine((await cli(["workflows", "push", dir])).stderr)).toBe(
      `headwater: ${file}: http_auth: the endpoint has no token yet: set token_env to the name of an environment variable that holds one (the token is never written in the file)`,
    );
    yaml("http_auth:\n  type: bearer\n  token_env: ORDERS_TOKEN\n");
    const unset = await cli(["workflows", "push", dir]);
    expect(unset.code).toBe(2);
    expect(oneLine(unset.stderr)).toBe(
      `headwater: ${file}: http_auth.token_env: the environment variable ORDERS_TOKEN is not set`,
    );
    // Nothing was created by any of them.
    expect((await user.client.listMyWorkflows()).data.some((w) => w.name === "timed")).toBe(false);
  });
});

describe("triggers through pull and push", () => {
  const workflow = (extra: Record<string, unknown>): Workflow =>
    ({
      id: "p_abc",
      name: "timed",
      deployment_id: "d_1",
      endpoint_url: "http://x/e/p_abc",
      active: true,
      created_at: 1,
      updated_at: 1,
      version: 3,
      steps: [{ id: "c_1", name: "a", code: CODE }],
      ...extra,
    }) as Workflow;
  const file = (extra: Partial<WorkflowFile>): WorkflowFile => ({
    name: "timed",
    steps: [{ name: "a", file: "a.mjs" }],
    ...extra,
  });

  it("pull writes the schedules and the auth's type the server answers, never a token, and nothing of a server without them", () => {
    const answered = workflow({
      schedules: [{ cron: "0 9 * * *", timezone: "Europe/Paris", next_at_ms: 5 }, { interval_seconds: 30 }],
      http_auth: { type: "bearer", token_set: true },
    });
    const written = parse(workflowFiles(answered).yaml) as Record<string, unknown>;
    expect(written.schedules).toEqual([
      { cron: "0 9 * * *", timezone: "Europe/Paris" },
      { interval_seconds: 30 },
    ]);
    expect(written.http_auth).toEqual({ type: "bearer" });
    const older = parse(workflowFiles(workflow({})).yaml) as Record<string, unknown>;
    expect(Object.keys(older)).not.toContain("schedules");
    expect(Object.keys(older)).not.toContain("http_auth");
  });

  it("push sends the file's triggers; a bearer keeps the server's token, or sets one from token_env", () => {
    const schedules = [{ cron: "*/5 * * * *" }];
    const open = workflow({ http_auth: { type: "none" } });
    const guarded = workflow({ http_auth: { type: "bearer", token_set: true } });
    expect(triggerFields(file({ schedules, http_auth: { type: "none" } }), guarded, {}, "w.yaml")).toEqual({
      schedules,
      http_auth: { type: "none" },
    });
    expect(triggerFields(file({ http_auth: { type: "bearer" } }), guarded, {}, "w.yaml")).toEqual({});
    expect(
      triggerFields(file({ http_auth: { type: "bearer", token_env: "T" } }), open, { T: "tok" }, "w.yaml"),
    ).toEqual({
      http_auth: { type: "bearer", token: "tok" },
    });
    expect(() => triggerFields(file({ http_auth: { type: "bearer" } }), open, {}, "w.yaml")).toThrow(
      /has no token yet/,
    );
    expect(triggerFields(file({}), undefined, {}, "w.yaml")).toEqual({});
    // Compared as a file holds them: a cron's zone UTC by default, the auth by its type.
    expect(comparableTriggers(file({ schedules, http_auth: { type: "bearer", token_env: "T" } }))).toEqual(
      comparableTriggers({
        schedules: [{ cron: "*/5 * * * *", timezone: "UTC" }],
        http_auth: { type: "bearer", token_set: true },
      }),
    );
  });
});
