import fs from "node:fs";
import { afterAll, describe, expect, it } from "vitest";
import { createDescriber } from "../../server/runtime/describe.js";
import { ComponentLoadError } from "../../server/services.js";
import { tempDataDir, testConfig } from "./helpers.js";

const dataDir = tempDataDir();
const describer = createDescriber(testConfig(dataDir, { HEADWATER_NPM_INSTALL: "false" }), { memoryMb: 48 });
afterAll(() => fs.rmSync(dataDir, { recursive: true, force: true }));

async function loadError(code: string): Promise<ComponentLoadError> {
  const err = await describer.describe(code).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(ComponentLoadError);
  return err as ComponentLoadError;
}

describe("describe", () => {
  it("reads a CommonJS component with props in declaration order and functions removed", async () => {
    const d = await describer.describe(`
      module.exports = {
        key: "cjs-one", name: "CJS One", version: "0.1.0", description: "d", dedupe: "unique",
        props: {
          db: "$.service.db",
          http: { type: "$.interface.http", customResponse: true },
          label: { type: "string", label: "Label", default: "x", options() { return ["a"]; } },
          count: { type: "integer", min: 1, optional: true },
        },
        hooks: { async deploy() {}, async activate() {} },
        async run(event) { this.$emit(event); },
      };`);
    expect(d).toEqual({
      key: "cjs-one",
      name: "CJS One",
      version: "0.1.0",
      description: "d",
      dedupe: "unique",
      hooks: ["deploy", "activate"],
      hasRun: true,
      type: "source",
      props: [
        { name: "db", type: "$.service.db" },
        { name: "http", type: "$.interface.http", customResponse: true },
        // The options() function is dropped; remoteOptions says the choices can be asked for.
        { name: "label", type: "string", label: "Label", default: "x", remoteOptions: true },
        { name: "count", type: "integer", min: 1, optional: true },
      ],
    });
  });

  it("reads ESM export default, defineComponent from the platform and the global defineSource", async () => {
    const esm = await describer.describe(`
      import { defineComponent } from "@pipedream/platform";
      export default defineComponent({ name: "E", version: "1.0.0", props: { http: "$.interface.http" }, run() {} });`);
    expect(esm.name).toBe("E");
    expect(esm.props).toEqual([{ name: "http", type: "$.interface.http" }]);
    const global = await describer.describe(`export default defineSource({ key: "g", run() {} })`);
    expect(global).toMatchObject({ key: "g", name: "g", version: "0.0.1", hasRun: true, props: [] });
    const ts = await describer.describe(`
      import { defineSource } from "@pipedream/types";
      const n: number = 3;
      export default defineSource({ name: "T" + n, run(): void {} });`);
    expect(ts.name).toBe("T3");
  });

  it("normalises timer shorthands and accepts a run-less timer", async () => {
    const d = await describer.describe(`
      export default { name: "S", props: { timer: { type: "$.interface.timer", intervalSeconds: 90 } } };`);
    expect(d.hasRun).toBe(false);
    expect(d.props).toEqual([{ name: "timer", type: "$.interface.timer", intervalSeconds: 90, default: { intervalSeconds: 90 } }]);
    const top = await describer.describe(`module.exports = { name: "C", cron: "0 * * * *", run() {} };`);
    expect(top.props).toEqual([{ name: "timer", type: "$.interface.timer", default: { cron: "0 * * * *" } }]);
  });

  it("resolves app props and propDefinitions from a relative app file", async () => {
    const app = `
      export default {
        type: "app", app: "github",
        propDefinitions: { repo: { type: "string", label: "Repository", description: "owner/name", async options() { return []; } } },
        methods: { base() { return "https://api.github.com"; } },
      };`;
    const d = await describer.describe(
      `import github from "./github.app.mjs";
       export default {
         name: "New star",
         props: { github, repo: { propDefinition: [github, "repo"], optional: true }, timer: "$.interface.timer" },
         run() {},
       };`,
      { "./github.app.mjs": app },
    );
    expect(d.props).toEqual([
      { name: "github", type: "app", app: "github" },
      { name: "repo", type: "string", label: "Repository", description: "owner/name", optional: true, remoteOptions: true },
      { name: "timer", type: "$.interface.timer" },
    ]);
  });

  it("rejects code that does not parse or is not a component", async () => {
    expect((await loadError("module.exports = {")).code).toBe("invalid_component");
    expect((await loadError("module.exports = 42")).message).toMatch(/does not export an object/);
    expect((await loadError("module.exports = { name: 'x' }")).message).toMatch(/run method/);
    expect((await loadError("throw new Error('boom at load')")).message).toMatch(/boom at load/);
    expect((await loadError("module.exports = { dedupe: 'sometimes', run() {} }")).message).toMatch(/dedupe/);
    expect((await loadError("require('./missing.js'); module.exports = { run() {} }")).message).toMatch(/missing\.js/);
  });

  it("stops an infinite loop and a memory bomb at load time", async () => {
    expect((await loadError("for (;;) {}")).code).toBe("component_timeout");
    expect((await loadError("const a = []; for (;;) a.push(new Array(1e5).fill('x'));")).code).toBe("component_out_of_memory");
  });

  it("refuses file system access and sees an empty environment", async () => {
    const read = await loadError(`require("fs").readFileSync("/etc/passwd"); module.exports = { run() {} };`);
    expect(read.message).toMatch(/Access to this API has been restricted|ERR_ACCESS_DENIED/);
    const env = await describer.describe(`module.exports = { name: JSON.stringify(Object.keys(process.env).filter(k => k !== "TMPDIR")), run() {} };`);
    expect(env.name).toBe("[]");
  });

  it("names a package that cannot be had when installs are disabled", async () => {
    const err = await loadError(`const x = require("left-pad"); module.exports = { run() {} };`);
    expect(err.message).toMatch(/left-pad.*installing new packages is disabled/);
  });
});
