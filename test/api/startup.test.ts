/** Starting `server/main.ts`: a bad configuration is refused with a message, before listening. */
import fs from "node:fs";
import { afterAll, describe, expect, it } from "vitest";
import { spawnServer, tempDataDir } from "../support/server.js";

describe("server start", () => {
  const dataDir = tempDataDir();
  afterAll(() => fs.rmSync(dataDir, { recursive: true, force: true }));

  it("refuses an invalid configuration, naming the variable, and exits 2", async () => {
    const err = await spawnServer({
      dataDir,
      env: { HEADWATER_PORT: "not-a-port", HEADWATER_API_KEY: "short" },
    }).then(
      () => undefined,
      (e: Error) => e,
    );
    expect(err?.message).toMatch(/exited \(2\) before listening/);
    expect(err?.message).toMatch(/HEADWATER_PORT: must be a whole number/);
    expect(err?.message).toMatch(/HEADWATER_API_KEY: must be at least 16 characters/);
  });
});
