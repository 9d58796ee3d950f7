/**
 * Before any test file: the build (dist/js) up to date. Tests spawn the built server and CLI
 * (spawnServer, the `headwater` bin, the web host) as a user runs them; without this, parallel
 * test files would each find a stale build and wait for one another's rebuild.
 */
import { ensureBuilt } from "../../scripts/build.mjs";

export default async function setup(): Promise<void> {
  await ensureBuilt({ log: (line) => process.stdout.write(`${line}\n`) });
}
