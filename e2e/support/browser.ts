/**
 * Debian's Chromium, never a downloaded build: its path and flags, shared by the Playwright test
 * config (playwright.config.ts) and the benches that drive a browser without the test runner
 * (bench/dashboard.bench.ts, bench/live-table.bench.ts, through `launchBrowser`). Screenshots of
 * e2e steps go to e2e/screenshots/ (gitignored).
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { chromium, type BrowserContext, type Page } from "playwright-core";

export const CHROMIUM = process.env.HEADWATER_CHROMIUM ?? "/usr/bin/chromium";
export const hasChromium = fs.existsSync(CHROMIUM);
export const SKIP_REASON = `Chromium not found at ${CHROMIUM} (apt-get install -y chromium, or set HEADWATER_CHROMIUM)`;

export const SCREENSHOT_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "screenshots");

/** Headless, no sandbox (containers), no GPU, and no network chatter of the browser's own. */
export const CHROMIUM_ARGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
  "--disable-default-apps",
  "--disable-extensions",
  "--metrics-recording-only",
];

/** Console errors and uncaught page errors of `page`, collected from now on. */
export function trackErrors(page: Page): string[] {
  const errors: string[] = [];
  page.on("console", (m) => {
    if (m.type() === "error") errors.push(m.text());
  });
  page.on("pageerror", (e) => errors.push(e.message));
  return errors;
}

export interface Browser {
  context: BrowserContext;
  page: Page;
  /** Console errors and uncaught page errors seen so far. */
  errors: string[];
  close(): Promise<void>;
}

/** A browser outside the test runner (benches): a persistent context on a fresh profile. */
export async function launchBrowser(opts: { width?: number; height?: number } = {}): Promise<Browser> {
  const userDataDir = fs.mkdtempSync(path.join(os.tmpdir(), "hw-chromium-"));
  const context = await chromium.launchPersistentContext(userDataDir, {
    executablePath: CHROMIUM,
    headless: true,
    args: CHROMIUM_ARGS,
    viewport: { width: opts.width ?? 1360, height: opts.height ?? 860 },
  });
  const page = context.pages()[0] ?? (await context.newPage());
  return {
    context,
    page,
    errors: trackErrors(page),
    async close() {
      await context.close();
      fs.rmSync(userDataDir, { recursive: true, force: true });
    },
  };
}
