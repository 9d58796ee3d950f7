/**
 * What a user is shown of a component's error (decisions.md "Workflow runs" > Stacks): the
 * `$errors` of a source and of a workflow, a logged error and POST /actions/run's error hold the
 * component's own frames (its files, the packages it imports) and no path of the server's: not
 * its install dir, not its node_modules, not the data dir (npm cache, workers' temp dirs), not
 * Node's internals. The worker sends whole stacks (worker.cjs, steps.cjs, the platform shim).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { step, waitForList, workflowErrors } from "../delivery/helpers.js";
import { serveFiles, type FilesServer } from "../support/files-server.js";
import { REPO_ROOT, startServer, type TestServer, type TestUser } from "../support/server.js";
import { hit, waitForEvents } from "./helpers.js";

// Line numbers matter: the stacks are checked for them.
const FAIL_MJS = `// A helper in a file of its own.
export function fail(what) {
  throw new TypeError("failed on purpose: " + what);
}
`;

const SOURCE_MJS = `import fs from "fs";
import os from "os";
import path from "path";
import JSON5 from "json5";
import { fail } from "../common/fail.mjs";
export default {
  name: "stack thrower",
  props: { http: "$.interface.http" },
  async run(event) {
    const c = event.body.case;
    if (c === "helper") fail("helper");
    if (c === "package") return JSON5.parse("{");
    if (c === "tmp") return fs.readFileSync(path.join(os.tmpdir(), "nope.txt"), "utf8");
    if (c === "logged") {
      try {
        fail("logged");
      } catch (err) {
        console.error(err);
      }
    }
  },
};
`;

const ACTION = `import fs from "fs";
import os from "os";
import path from "path";
export default {
  key: "mine-thrower",
  name: "Thrower",
  version: "0.0.1",
  type: "action",
  props: {},
  async run({ $ }) {
    console.error(new Error("logged by the action"));
    return fs.readFileSync(path.join(os.tmpdir(), "missing.txt"), "utf8");
  },
};`;

interface ErrorEvent {
  error: { code: string; name?: string; message: string; stack: string };
}

describe("stacks shown to users", () => {
  let s: TestServer;
  let alice: TestUser;
  let files: FilesServer;

  /** Nothing of the server's: its paths, its files, Node's internals. */
  function expectNothingOfTheServer(text: string) {
    for (const leak of [
      REPO_ROOT,
      process.cwd(),
      s.dataDir,
      "/server/",
      "node:internal",
      "node_modules",
      "worker.cjs",
      "steps.cjs",
      "/sandbox/",
    ])
      expect(text, `${JSON.stringify(leak)} in ${text}`).not.toContain(leak);
  }

  beforeAll(async () => {
    // The component_url is served from 127.0.0.1, which the server refuses by default.
    s = await startServer({ env: { HEADWATER_SANDBOX_ALLOW_PRIVATE_NETWORK: "true" } });
    alice = await s.newUser();
    files = await serveFiles({ "/sources/thrower.mjs": SOURCE_MJS, "/common/fail.mjs": FAIL_MJS });
  }, 60_000);
  afterAll(async () => {
    await files?.close();
    await s?.stop();
  });

  it(
    "a source's $errors and logged errors: its own frames and files, packages by their own path, no server path",
    { timeout: 180_000 },
    async () => {
      // Installs json5 into the npm cache on first use.
      const src = await alice.client.createSource({ component_url: `${files.url}/sources/thrower.mjs` });
      const url = (src.configured_props.http as { endpoint_url: string }).endpoint_url;
      for (const c of ["helper", "package", "tmp", "logged"]) await hit(url, { body: { case: c } });
      const errors = (await waitForEvents(alice.client, src.id, "$errors", 3, 60_000)).map(
        (e) => (e.event as ErrorEvent).error,
      );

      const [helper, pkg, tmp] = errors as [ErrorEvent["error"], ErrorEvent["error"], ErrorEvent["error"]];
      // The loader's virtual files: the helper's (line 3 of common/fail.mjs), then the run's own.
      const helperLines = helper.stack.split("\n");
      expect(helperLines[0]).toBe("TypeError: failed on purpose: helper");
      expect(helperLines[1]).toMatch(/^ {4}at fail \(\/component\/common\/fail\.mjs:3:\d+\)$/);
      expect(
        helperLines.slice(2).every((l) => /^ {4}at .*\/component\/_1\/index\.mjs:\d+:\d+\)?$/.test(l)),
      ).toBe(true);
      expect(helperLines.length).toBeGreaterThan(2);
      expect(helper.message).toBe("TypeError: failed on purpose: helper");

      // A package's frames by its own path, then the component's call of it.
      expect(pkg.stack).toMatch(/^SyntaxError: JSON5: invalid end of input/);
      expect(pkg.stack).toMatch(/\n {4}at .*\(json5\/lib\/parse\.js:\d+:\d+\)/);
      expect(pkg.stack).toMatch(/\n {4}at .*\/component\/_1\/index\.mjs:12:\d+/);

      // The worker's temp dir, in a message, as the variable the component reads it from.
      expect(tmp.message).toBe("ENOENT: no such file or directory, open '$TMPDIR/nope.txt'");
      expect(tmp.stack.split("\n")[0]).toBe(
        "Error: ENOENT: no such file or directory, open '$TMPDIR/nope.txt'",
      );
      expect(tmp.stack).toMatch(/\n {4}at .*\/component\/_1\/index\.mjs:13:\d+/);

      const logs = await waitForEvents(alice.client, src.id, "$logs", 1);
      const logged = (logs.at(-1)!.event as { message: string }).message;
      expect(logged).toContain("TypeError: failed on purpose: logged");
      expect(logged).toMatch(/at fail \(\/component\/common\/fail\.mjs:3:\d+\)/);

      for (const e of errors) {
        expectNothingOfTheServer(e.stack);
        expectNothingOfTheServer(e.message);
      }
      expectNothingOfTheServer(logged);
    },
  );

  it("a workflow's $errors: the step's frames only", async () => {
    const wf = await alice.client.createWorkflow({
      name: "thrower",
      steps: [
        {
          name: "a",
          code: step(`function h() { throw new RangeError("step failed"); } [1].map(() => h());`),
        },
      ],
    });
    await hit(wf.endpoint_url, { body: { x: 1 } });
    const [e] = await waitForList(workflowErrors(alice.client, wf.id), 1);
    const { error } = e!.event as ErrorEvent;
    const lines = error.stack.split("\n");
    expect(lines[0]).toBe("RangeError: step failed");
    expect(lines[1]).toMatch(/^ {4}at h \(\/component\/index\.mjs:1:\d+\)$/);
    // Node's own frame the step called stays: it tells how h was reached.
    expect(lines).toContain("    at Array.map (<anonymous>)");
    expectNothingOfTheServer(error.stack);
  });

  it("POST /actions/run: the error's message and logged errors hold no server path", async () => {
    const r = await alice.client.runAction({ component_code: ACTION, configured_props: {} });
    expect(r.error).toEqual({
      name: "Error",
      message: "ENOENT: no such file or directory, open '$TMPDIR/missing.txt'",
    });
    const logged = r.logs.map((l) => l.message).join("\n");
    expect(logged).toContain("Error: logged by the action");
    expect(logged).toMatch(/at Object\.run \(\/component\/index\.mjs:11:\d+\)/);
    expectNothingOfTheServer(logged);
    expectNothingOfTheServer(JSON.stringify(r));
  });
});
