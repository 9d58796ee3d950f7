/**
 * The sandbox's module loader on its own (no server, no registry): packages laid out in a temp
 * dir as the npm cache would hold them, bundles compiled as the server compiles them.
 */
import fs from "node:fs";
import { createRequire } from "node:module";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { compileBundle } from "../../server/runtime/compile.js";

type Loader = {
  loadBundle: (bundle: unknown, packageDirs: Record<string, string>) => Record<string, unknown>;
};
const { loadBundle } = createRequire(import.meta.url)("../../server/runtime/sandbox/loader.cjs") as Loader;

/** One install dir per package, as server/runtime/npm/cache.ts makes them. */
function install(root: string, name: string, files: Record<string, string>): string {
  const dir = path.join(root, `${name}@latest`);
  for (const [p, text] of Object.entries(files)) {
    const full = path.join(dir, "node_modules", name, p);
    fs.mkdirSync(path.dirname(full), { recursive: true });
    fs.writeFileSync(full, text);
  }
  return dir;
}

describe("sandbox loader", () => {
  let root: string;
  let dirs: Record<string, string>;

  beforeAll(() => {
    root = fs.mkdtempSync(path.join(os.tmpdir(), "hw-loader-"));
    dirs = {
      // ESM-only, and reachable only through the `import` condition.
      "import-only": install(root, "import-only", {
        "package.json": JSON.stringify({
          name: "import-only",
          type: "module",
          exports: { ".": { import: "./index.js" } },
        }),
        "index.js": "export default function greet(n) { return `hi ${n}`; }\nexport const version = 3;",
      }),
      // ESM-only with an object default and named exports.
      "esm-object": install(root, "esm-object", {
        "package.json": JSON.stringify({ name: "esm-object", type: "module", main: "index.js" }),
        "index.js": "export default { fromDefault: 1 };\nexport const named = 2;",
      }),
      // CommonJS as TypeScript emits it: __esModule set, no `default`.
      "ts-cjs": install(root, "ts-cjs", {
        "package.json": JSON.stringify({ name: "ts-cjs", main: "index.js" }),
        "index.js":
          'Object.defineProperty(exports, "__esModule", { value: true });\nexports.add = (a, b) => a + b;',
      }),
      // A package that requires @pipedream/platform itself, with a stand-in for the vendor's
      // package installed beside it (as npm would install it as a dependency).
      "uses-platform": install(root, "uses-platform", {
        "package.json": JSON.stringify({ name: "uses-platform", main: "index.js" }),
        "index.js":
          'const p = require("@pipedream/platform"); module.exports = { vendor: p.vendor === true, sql: typeof p.sqlProxy };',
      }),
    };
    const standIn = path.join(dirs["uses-platform"]!, "node_modules", "@pipedream", "platform");
    fs.mkdirSync(standIn, { recursive: true });
    fs.writeFileSync(
      path.join(standIn, "package.json"),
      JSON.stringify({ name: "@pipedream/platform", main: "index.js" }),
    );
    fs.writeFileSync(path.join(standIn, "index.js"), "module.exports = { vendor: true };");
  });
  afterAll(() => fs.rmSync(root, { recursive: true, force: true }));

  const load = (code: string, files?: Record<string, string>) => {
    const { main, files: compiled } = compileBundle(code, files);
    return loadBundle({ main, files: compiled }, dirs);
  };

  it("require() of an ESM-only package is callable with its named exports; import gets default and named", () => {
    const c = load(`
      const greet = require("import-only");
      const obj = require("esm-object");
      import g2, { version } from "import-only";
      module.exports = { a: greet("a"), v: greet.version, d: typeof greet.default, b: g2("b"), version, fromDefault: obj.fromDefault, named: obj.named };`);
    expect(c).toEqual({ a: "hi a", v: 3, d: "function", b: "hi b", version: 3, fromDefault: 1, named: 2 });
  });

  it("import x from a CommonJS package marked __esModule gets module.exports, as in Node", () => {
    const c = load(
      `import lib, { add } from "ts-cjs"; import * as all from "ts-cjs"; export default { viaDefault: lib.add(1, 2), named: add(2, 2), star: all.add(3, 3), starDefault: all.default === lib };`,
    );
    expect(c).toEqual({ viaDefault: 3, named: 4, star: 6, starDefault: true });
  });

  it("gives npm packages that require @pipedream/platform our shim, never the installed package", () => {
    expect(load(`module.exports = require("uses-platform");`)).toEqual({ vendor: false, sql: "object" });
  });

  it("keys files above the main file's folder apart from their namesakes below it", () => {
    const bundle = compileBundle("", {
      "../common/c.mjs": "",
      "./common/c.mjs": "",
      "../../common/c.mjs": "",
      "./a/../b/./d.mjs": "",
    });
    expect(Object.keys(bundle.files).sort()).toEqual([
      "../../common/c.mjs",
      "../common/c.mjs",
      "b/d.mjs",
      "common/c.mjs",
    ]);
    const c = load(
      `import up from "../common/c.mjs"; import here from "./common/c.mjs"; import top from "../../common/c.mjs"; export default { up, here, top };`,
      {
        "../common/c.mjs": `import s from "./sibling.mjs"; export default "up+" + s;`,
        "../common/sibling.mjs": `export default "up-sibling";`,
        "./common/c.mjs": `export default "here";`,
        "../../common/c.mjs": `export default "top";`,
      },
    );
    expect(c).toEqual({ up: "up+up-sibling", here: "here", top: "top" });
  });
});
