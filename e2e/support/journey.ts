/**
 * A serial journey's dashboard: the web host (on an account of a server, or on the Local profile
 * it starts itself), a browser context of the journey's own, and its page with console and page
 * errors tracked. Journeys open one in `beforeAll` and close it in `afterAll`; tests that need a
 * fresh host per test use the `dashboard` fixture (fixtures.ts) instead.
 */
import type { Browser, BrowserContext, Page } from "@playwright/test";
import { trackErrors } from "./browser.js";
import { startWebHost, type WebHost, type WebHostOptions } from "./web-host.js";

export interface Journey {
  host: WebHost;
  context: BrowserContext;
  page: Page;
  /** Console errors and uncaught page errors since the page opened. */
  errors: string[];
}

export interface JourneyOptions extends WebHostOptions {
  viewport?: { width: number; height: number };
  /** Browser permissions for the host's origin (the clipboard's, say). */
  permissions?: string[];
  /** Whether the page opens the dashboard at once (default true). */
  open?: boolean;
}

export async function openJourney(browser: Browser, opts: JourneyOptions = {}): Promise<Journey> {
  const { viewport = { width: 1360, height: 900 }, permissions, open = true, ...hostOptions } = opts;
  const host = await startWebHost(hostOptions);
  const context = await browser.newContext({ viewport });
  if (permissions) await context.grantPermissions(permissions, { origin: new URL(host.url).origin });
  const page = await context.newPage();
  const errors = trackErrors(page);
  if (open) await page.goto(host.url);
  return { host, context, page, errors };
}

/** Closes what `openJourney` opened, whatever part of it was opened. */
export async function closeJourney(j: Partial<Journey> | undefined): Promise<void> {
  await j?.context?.close();
  await j?.host?.stop();
}
