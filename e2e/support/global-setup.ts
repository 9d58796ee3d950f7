/**
 * Runs once before the e2e suite: builds the dashboard renderer when the build is missing or
 * older than its sources, so every worker and web host serves the same, current build.
 */
import { ensureRendererBuilt } from "../../scripts/build-renderer.mjs";

export default async function globalSetup(): Promise<void> {
  await ensureRendererBuilt({ log: (m: string) => process.stdout.write(`${m}\n`) });
}
