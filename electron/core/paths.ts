/**
 * Where things are: the project root (the bundled server and renderer build) and the per-user
 * data dir, which is the same in Electron (`app.getPath("userData")` for an app named
 * "headwater") and web mode, so both use the same local server data.
 */
import os from "node:os";
import path from "node:path";

export const APP_NAME = "headwater";

/** `HEADWATER_APP_DATA_DIR` (tests, portable setups) or the platform's per-user config dir. */
export function userDataDir(env: NodeJS.ProcessEnv = process.env): string {
  if (env.HEADWATER_APP_DATA_DIR) return path.resolve(env.HEADWATER_APP_DATA_DIR);
  const home = os.homedir();
  if (process.platform === "win32") return path.join(env.APPDATA ?? path.join(home, "AppData", "Roaming"), APP_NAME);
  if (process.platform === "darwin") return path.join(home, "Library", "Application Support", APP_NAME);
  return path.join(env.XDG_CONFIG_HOME ?? path.join(home, ".config"), APP_NAME);
}

export const rendererBuildDir = (appRoot: string) => path.join(appRoot, "dist", "renderer");
