// Finds the Electron executable without ever triggering its download (node_modules/electron's
// index.js downloads when path.txt is missing; this only looks). Used by `npm start` and the
// Electron e2e test.
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");

/** `{exe}` when Electron can be launched here, else `{reason}` saying why not. */
export function findElectron({ needDisplay = true } = {}) {
  const dir = path.join(root, "node_modules", "electron");
  if (!fs.existsSync(path.join(dir, "package.json"))) return { reason: "the electron package is not installed" };
  let exe;
  if (process.env.ELECTRON_OVERRIDE_DIST_PATH) {
    const name =
      process.platform === "win32" ? "electron.exe" : process.platform === "darwin" ? "Electron.app/Contents/MacOS/Electron" : "electron";
    exe = path.join(process.env.ELECTRON_OVERRIDE_DIST_PATH, name);
  } else {
    const pathFile = path.join(dir, "path.txt");
    if (!fs.existsSync(pathFile)) {
      return { reason: "the Electron binary was never downloaded (its installer needs network access and Node 22.12+)" };
    }
    exe = path.join(dir, "dist", fs.readFileSync(pathFile, "utf8").trim());
  }
  if (!fs.existsSync(exe)) return { reason: `the Electron binary is missing (${path.relative(root, exe)})` };
  if (needDisplay && process.platform === "linux" && !process.env.DISPLAY && !process.env.WAYLAND_DISPLAY) {
    return { reason: "there is no display (neither DISPLAY nor WAYLAND_DISPLAY is set)" };
  }
  return { exe };
}
