/**
 * The built-in registry components, our own code in the hosted service's component format:
 * HTTP requests, a schedule, and an RSS/Atom feed poller. Seeded into the registry at start
 * (published, owned by the system user) through ComponentService.ensureBuiltins.
 */
import fs from "node:fs";
import path from "node:path";
import { BUILTIN_COMPONENTS_DIR } from "../../../shared/app-paths.js";

export const BUILTIN_FILES = ["http-requests.mjs", "schedule.mjs", "rss.mjs"] as const;

/** The built-ins' source code, in a fixed order. */
export function builtinComponentCodes(): string[] {
  return BUILTIN_FILES.map((f) => fs.readFileSync(path.join(BUILTIN_COMPONENTS_DIR, f), "utf8"));
}
