/**
 * The Electron app itself, through Playwright's `_electron.launch`. Runs only where the Electron
 * binary is installed and a display is available; elsewhere it is skipped with the reason
 * printed (web mode, tested in e2e/web, runs the same renderer and host core).
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { _electron, type ElectronApplication } from "@playwright/test";
import { buildElectron } from "../../electron/build.mjs";
import { findElectron } from "../../scripts/electron-binary.mjs";
import { expect, screenshot, test } from "../support/fixtures.js";

const electron = findElectron();
if (!electron.exe) console.warn(`e2e/electron: skipped: ${electron.reason}`);
// Skipped where Electron cannot run (no binary, no display), saying why in the report.
test.skip(!electron.exe, electron.reason ?? "");

test.describe("Electron app", () => {
  let app: ElectronApplication | undefined;
  let appData: string | undefined;

  test.afterAll(async () => {
    await app?.close();
    if (appData) fs.rmSync(appData, { recursive: true, force: true });
  });

  test("opens a hardened window on the Local connection with live events", async () => {
    test.setTimeout(180_000);
    appData = fs.mkdtempSync(path.join(os.tmpdir(), "hw-electron-"));
    const { main } = await buildElectron();
    const env: Record<string, string> = {};
    for (const [k, v] of Object.entries(process.env))
      if (v !== undefined && !k.startsWith("HEADWATER_")) env[k] = v;
    app = await _electron.launch({
      executablePath: electron.exe!,
      args: [...(process.getuid?.() === 0 ? ["--no-sandbox"] : []), main],
      env: { ...env, HEADWATER_APP_DATA_DIR: appData },
    });
    const page = await app.firstWindow();
    await page
      .getByRole("list", { name: "Source list" })
      .getByRole("link", { name: /Example: every 5 seconds/ })
      .click({ timeout: 90_000 });
    await page
      .getByRole("grid", { name: /^Events of dc_/ })
      .getByRole("row")
      .nth(1)
      .waitFor({ timeout: 30_000 });

    // The page has the bridge and nothing of Node or Electron.
    const globals = await page.evaluate(() => ({
      bridge: typeof window.headwater?.listMySources,
      require: typeof (globalThis as { require?: unknown }).require,
      process: typeof (globalThis as { process?: unknown }).process,
      ipc: typeof (globalThis as { ipcRenderer?: unknown }).ipcRenderer,
    }));
    expect(globals).toEqual({
      bridge: "function",
      require: "undefined",
      process: "undefined",
      ipc: "undefined",
    });
    // Navigation away from the app is blocked.
    await page.evaluate(() => {
      location.href = "https://example.com/";
    });
    await new Promise((r) => setTimeout(r, 500));
    expect(page.url()).toMatch(/^app:\/\/dashboard\//);
    await screenshot(page, "electron-first-launch");
  });
});
