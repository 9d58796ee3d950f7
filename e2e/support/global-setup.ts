/**
 * Runs once before the e2e suite: builds what is missing or older than its sources (dist/js: the
 * web host and server the tests spawn; the dashboard renderer), so every worker and web host runs
 * the same, current build.
 */
import { ensureBuilt } from "../../scripts/build.mjs";
import { ensureRendererBuilt } from "../../scripts/build-renderer.mjs";

export default async function globalSetup(): Promise<void> {
  await ensureBuilt({ log: (m: string) => process.stdout.write(`${m}\n`) });
  await ensureRendererBuilt({ log: (m: string) => process.stdout.write(`${m}\n`) });
}
