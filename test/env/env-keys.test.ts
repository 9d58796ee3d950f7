/**
 * Secret environment variables and the secrets key (decisions.md "Connected accounts" and
 * "Operating a server"): `headwater secrets rotate` re-seals them with the accounts, a running
 * server follows, the old key can then go; a `headwater backup` holds them sealed only, and a
 * server restored from it (with the key file beside it) runs with them.
 */
import fs from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { createServer, type Server } from "../../server/app.js";
import { loadConfig } from "../../server/config.js";
import { createClient, type Client } from "../../shared/client/index.js";
import { runCli } from "../cli/helpers.js";
import { step } from "../delivery/helpers.js";
import { randomKey, tempDataDir } from "../support/server.js";

const SECRET = "rotate-me-7c1d52aa90";

const running: Server[] = [];
afterEach(async () => {
  for (const s of running.splice(0)) await s.close().catch(() => undefined);
});

async function start(dataDir: string, adminKey: string): Promise<{ server: Server; admin: Client }> {
  const server = await createServer(
    loadConfig({
      HEADWATER_HOST: "127.0.0.1",
      HEADWATER_PORT: "0",
      HEADWATER_DATA_DIR: dataDir,
      HEADWATER_API_KEY: adminKey,
      HEADWATER_LOG_LEVEL: "silent",
      HEADWATER_NPM_COMPONENTS: "0",
      HEADWATER_RATE_LIMIT: "0",
    }),
  );
  running.push(server);
  return { server, admin: createClient({ baseUrl: `${server.url}/v1`, apiKey: adminKey }) };
}

async function stop(server: Server): Promise<void> {
  await server.close();
  running.splice(running.indexOf(server), 1);
}

/** What a test run of the workflow's one step reads: whether process.env.TOKEN is the secret. */
async function reads(admin: Client, workflowId: string): Promise<unknown> {
  const run = await admin.testWorkflow(workflowId);
  return run.steps[0]!.return_value;
}

const holding = (dir: string, value: string) =>
  fs
    .readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile() && fs.readFileSync(path.join(e.parentPath, e.name)).includes(value))
    .map((e) => e.name);

describe("secret environment variables and the secrets key", { timeout: 120_000 }, () => {
  it("rotate re-seals them while the server runs; a backup holds them sealed; a restore with its key runs with them", async () => {
    const dataDir = tempDataDir();
    const adminKey = randomKey();
    let r = await start(dataDir, adminKey);
    await r.admin.setEnvVar("TOKEN", { value: SECRET });
    await r.admin.setEnvVar("OTHER", { value: "other-secret-value" });
    await r.admin.setEnvVar("OPEN", { value: "not-secret", secret: false });
    const wf = await r.admin.createWorkflow({
      name: "reads",
      // Compared reversed: the step's code (stored, backed up) must not hold the value itself.
      steps: [
        {
          name: "r",
          code: step(
            `return [...(process.env.TOKEN ?? "")].reverse().join("") === ${JSON.stringify([...SECRET].reverse().join(""))};`,
          ),
        },
      ],
    });
    expect(await reads(r.admin, wf.id)).toBe(true);

    const rotated = await runCli(["secrets", "rotate", "--data-dir", dataDir]);
    expect(rotated.code, rotated.stderr).toBe(0);
    expect(rotated.stdout).toMatch(/2 secret environment variable\(s\) sealed again under key [0-9a-f]{16}/);
    expect(await reads(r.admin, wf.id)).toBe(true);
    await stop(r.server);

    // Everything is under the new key: the old one is no longer needed.
    fs.rmSync(path.join(dataDir, "secrets.key.previous"));
    r = await start(dataDir, adminKey);
    expect(await reads(r.admin, wf.id)).toBe(true);

    const backup = path.join(tempDataDir(), "copy.db");
    const b = await runCli(["backup", backup, "--data-dir", dataDir]);
    expect(b.code, b.stderr).toBe(0);
    expect(fs.readFileSync(backup).includes(SECRET)).toBe(false);
    await stop(r.server);
    expect(holding(dataDir, SECRET)).toEqual([]);

    // Restored as docs/operations.md says, with the key file beside the copy.
    const restored = tempDataDir();
    fs.copyFileSync(backup, path.join(restored, "headwater.db"));
    fs.copyFileSync(path.join(dataDir, "secrets.key"), path.join(restored, "secrets.key"));
    r = await start(restored, adminKey);
    expect((await r.admin.listMyEnvVars()).map((v) => [v.name, v.secret])).toEqual([
      ["OPEN", false],
      ["OTHER", true],
      ["TOKEN", true],
    ]);
    expect(await reads(r.admin, wf.id)).toBe(true);
    await stop(r.server);

    // Without its key, the copy still lists them, and runs go without them (nothing fails).
    const keyless = tempDataDir();
    fs.copyFileSync(backup, path.join(keyless, "headwater.db"));
    r = await start(keyless, adminKey);
    expect((await r.admin.listMyEnvVars()).length).toBe(3);
    expect(await reads(r.admin, wf.id)).toBe(false);
    // Setting it again mends it under this server's key.
    await r.admin.setEnvVar("TOKEN", { value: SECRET });
    expect(await reads(r.admin, wf.id)).toBe(true);
  });
});
