/**
 * Profiles saved by `headwater login`: API base URL and key per profile name, in
 * `<config dir>/headwater/cli-profiles.json` (the dashboard's per-user dir: `XDG_CONFIG_HOME`
 * or `HEADWATER_APP_DATA_DIR` move it). The file holds keys, so it is written 0600 in a 0700
 * dir, like `~/.npmrc`: a plain CLI has no OS keychain without native modules.
 */
import fs from "node:fs";
import path from "node:path";
import * as z from "../../shared/zod.js";
import { userDataDir } from "../../electron/core/paths.js";
import { CliError } from "../errors.js";

export const DEFAULT_PROFILE = "default";

const SavedProfile = z.object({
  apiUrl: z.string().check(z.minLength(1)),
  apiKey: z.string().check(z.minLength(1)),
  username: z.optional(z.string()),
});
export type SavedProfile = z.infer<typeof SavedProfile>;

const ProfilesFile = z.object({ profiles: z._default(z.record(z.string(), SavedProfile), {}) });
type ProfilesFile = z.infer<typeof ProfilesFile>;

export function profilesPath(env: NodeJS.ProcessEnv = process.env): string {
  return path.join(userDataDir(env), "cli-profiles.json");
}

export function readProfiles(file: string): ProfilesFile {
  let text: string;
  try {
    text = fs.readFileSync(file, "utf8");
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return { profiles: {} };
    throw new CliError(`cannot read ${file}: ${(err as Error).message}`);
  }
  let parsed;
  try {
    parsed = ProfilesFile.safeParse(JSON.parse(text));
  } catch {
    parsed = undefined;
  }
  if (!parsed?.success) throw new CliError(`${file} is not a profiles file: fix it or delete it and run headwater login`);
  return parsed.data;
}

export function saveProfile(file: string, name: string, profile: SavedProfile): void {
  const current = readProfiles(file);
  current.profiles[name] = profile;
  const dir = path.dirname(file);
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  // mkdirSync's mode applies only to a dir it creates (and passes the umask): the app's own
  // dir, which holds keys, is made private also when the dashboard or a user made it first.
  fs.chmodSync(dir, 0o700);
  const tmp = `${file}.${process.pid}.tmp`;
  fs.writeFileSync(tmp, JSON.stringify(current, null, 2) + "\n", { mode: 0o600 });
  // The mode given to writeFileSync is filtered by the umask; the key file must be 0600 whatever it is.
  fs.chmodSync(tmp, 0o600);
  fs.renameSync(tmp, file);
}

/** Profile names are what follows `--profile`: short, no spaces or slashes. */
export function checkProfileName(name: string): string | undefined {
  return /^[A-Za-z0-9_.-]{1,64}$/.test(name) ? undefined : "a profile name is 1 to 64 letters, digits, '_', '.' or '-'";
}
