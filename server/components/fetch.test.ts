import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { serveFiles, type FilesServer } from "../../test/support/files-server.js";
import {
  ComponentFetchError,
  DEFAULT_FETCH_LIMITS,
  fetchComponent,
  rawUrl,
  relativeImports,
} from "./fetch.js";

const LOCAL = { allowPrivate: true, blockedPorts: [] };

describe("rawUrl", () => {
  it("reads a GitHub blob URL as its raw file", () => {
    expect(rawUrl("https://github.com/acme/sources/blob/main/rss/rss.mjs")).toBe(
      "https://raw.githubusercontent.com/acme/sources/main/rss/rss.mjs",
    );
  });
  it("leaves other URLs alone", () => {
    for (const u of [
      "https://github.com/acme/sources",
      "https://example.com/blob/x.js",
      "http://127.0.0.1:8080/a.js",
    ]) {
      expect(rawUrl(u)).toBe(u);
    }
  });
});

describe("relativeImports", () => {
  it("finds relative specifiers in import, export, dynamic import and require", () => {
    const code = `
      import a from "./a.mjs";
      import { b } from '../lib/b';
      import "./side-effect.js";
      export * from "./re-export.js";
      const c = require("./c.cjs");
      const d = await import("./d.mjs");
      import axios from "axios";
      const fs = require("fs");`;
    expect(relativeImports(code).sort()).toEqual(
      ["./a.mjs", "../lib/b", "./side-effect.js", "./re-export.js", "./c.cjs", "./d.mjs"].sort(),
    );
  });
});

describe("fetchComponent", () => {
  let files: FilesServer;
  beforeAll(async () => {
    files = await serveFiles({
      "/c/main.js": `const x = require("./x"); module.exports = { run() {} };`,
      "/c/x.js": `module.exports = require("./y.json");`,
      "/c/y.json": `{"ok": true}`,
      "/c/loop.js": `require("./loop.js"); module.exports = {};`,
      "/moved": (res) => res.writeHead(302, { Location: "/c/main.js" }).end(),
      "/c/chunked.js": (res) => {
        res.writeHead(200);
        for (let i = 0; i < 20; i++) res.write("x".repeat(1024));
        res.end();
      },
    });
  });
  afterAll(() => files.close());

  it("resolves extensionless imports the way the runtime loads them", async () => {
    const r = await fetchComponent(`${files.url}/c/main.js`, LOCAL);
    expect(Object.keys(r.files).sort()).toEqual(["./x.js", "./y.json"]);
  });

  it("fetches a module that imports itself once", async () => {
    const r = await fetchComponent(`${files.url}/c/loop.js`, LOCAL);
    expect(r.files).toEqual({});
  });

  it("refuses private addresses unless allowed, by literal and by name, and blocked ports always", async () => {
    const strict = { allowPrivate: false, blockedPorts: [] };
    await expect(fetchComponent(`${files.url}/c/main.js`, strict)).rejects.toThrow(/refused: loopback address/);
    const byName = files.url.replace("127.0.0.1", "localhost");
    await expect(fetchComponent(`${byName}/c/main.js`, strict)).rejects.toThrow(/refused: loopback address/);
    const port = Number(new URL(files.url).port);
    await expect(
      fetchComponent(`${files.url}/c/main.js`, { allowPrivate: true, blockedPorts: [port] }),
    ).rejects.toThrow(/refused: the database's port/);
  });

  it("follows redirects, checking each hop", async () => {
    const r = await fetchComponent(`${files.url}/moved`, LOCAL);
    expect(r.code).toContain('require("./x")');
  });

  it("enforces the size limit while reading a body without content-length", async () => {
    const p = fetchComponent(`${files.url}/c/chunked.js`, LOCAL, {
      ...DEFAULT_FETCH_LIMITS,
      maxFileBytes: 8 * 1024,
    });
    await expect(p).rejects.toBeInstanceOf(ComponentFetchError);
    await expect(p).rejects.toThrow(/larger than 8192 bytes/);
  });
});
