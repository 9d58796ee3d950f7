/**
 * `npx tsx test/vendor-table.ts [--actions | --actions-only] [@pipedream/pkg@version ...]`: which
 * of the vendor's published source components (with --actions: actions too; --actions-only:
 * actions alone) load in Headwater. Each package is fetched from the npm registry into a
 * temp dir (never committed: the vendor's licence), served by a local file server, and each
 * source file (`sources/<name>/<name>.mjs`) is sent to POST /components by URL, as a user
 * would. Prints a Markdown table: key, loads or not, its props, and the error when not.
 */
import fs from "node:fs";
import { serveFiles } from "./support/files-server.js";
import { startServer } from "./support/server.js";
import { packVendor, packageFiles, vendorTempDir } from "./support/vendor-packages.js";

const DEFAULT_PACKAGES = [
  "@pipedream/postgresql@2.2.4",
  "@pipedream/mysql@2.5.0",
  "@pipedream/sftp@0.5.1",
  "@pipedream/helper_functions@0.3.13",
  "@pipedream/pipedream@0.4.2",
  "@pipedream/slack@0.10.3",
  "@pipedream/gitlab@0.5.6",
  "@pipedream/notion@1.0.6",
  "@pipedream/shopify@1.0.1",
];

interface Row {
  pkg: string;
  file: string;
  key: string;
  ok: boolean;
  props: string;
  why: string;
}

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  const kinds = args.includes("--actions-only") ? "actions" : args.includes("--actions") ? "sources|actions" : "sources";
  const named = args.filter((a) => !a.startsWith("--"));
  const specs = named.length ? named : DEFAULT_PACKAGES;
  const componentFile = new RegExp(`^(?:${kinds})/([^/]+)/([^/]+)\\.(mjs|js|ts)$`);
  const dir = vendorTempDir();
  const files: Record<string, string> = {};
  const sources: Array<{ pkg: string; file: string }> = [];
  for (const spec of specs) {
    const pkgDir = await packVendor(spec, dir);
    const prefix = spec.replace(/^@pipedream\//, "").replace(/@.*$/, "");
    for (const [p, text] of Object.entries(packageFiles(pkgDir))) {
      files[`/${prefix}/${p}`] = text;
      const m = componentFile.exec(p);
      if (m && m[1] === m[2]) sources.push({ pkg: spec, file: `/${prefix}/${p}` });
    }
  }
  const server = await serveFiles(files);
  // A survey installs every package the components import: no per-user hourly budget.
  const s = await startServer({ env: { HEADWATER_SANDBOX_ALLOW_PRIVATE_NETWORK: "1", HEADWATER_NPM_INSTALLS_PER_USER_HOUR: "0" } });
  const user = await s.newUser();
  const rows: Row[] = [];
  try {
    for (const { pkg, file } of sources) {
      const res = await fetch(`${s.baseUrl}/components`, {
        method: "POST",
        headers: { authorization: `Bearer ${user.key}`, "content-type": "application/json" },
        body: JSON.stringify({ component_url: `${server.url}${file}` }),
      });
      const body = (await res.json()) as {
        data?: { key: string; configurable_props: Array<{ name: string; type: string }> };
        error?: string;
      };
      const props = body.data?.configurable_props.map((p) => `${p.name}:${p.type}`).join(", ") ?? "";
      rows.push({
        pkg,
        file,
        key: body.data?.key ?? file.split("/").pop()!,
        ok: res.status === 200,
        props,
        why: res.status === 200 ? "" : `${res.status} ${body.error ?? ""}`,
      });
      process.stderr.write(res.status === 200 ? "." : "x");
    }
  } finally {
    process.stderr.write("\n");
    await s.stop();
    await server.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
  const cell = (t: string) => t.replace(/\|/g, "\\|").replace(/\s+/g, " ").slice(0, 300);
  console.log(`| package | component key | loads | props | why not |\n|---|---|---|---|---|`);
  for (const r of rows)
    console.log(`| ${r.pkg} | ${r.key} | ${r.ok ? "yes" : "NO"} | ${cell(r.props)} | ${cell(r.why)} |`);
  const ok = rows.filter((r) => r.ok).length;
  console.log(`\n${ok} of ${rows.length} components load.`);
}

await main();
