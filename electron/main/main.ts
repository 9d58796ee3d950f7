/**
 * Electron main: wiring only. The host (electron/core) does the work; this file makes the
 * window (contextIsolation, sandbox, no nodeIntegration, CSP, no navigation or new windows),
 * serves the renderer build on the `app://` protocol, stores keys with safeStorage and settings
 * with electron-store, and connects IPC and pushed events to the host.
 *
 * Bundled by electron/build.mjs into dist/electron/main.mjs (with preload.cjs beside it).
 */
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { BrowserWindow, app, ipcMain, net, protocol, safeStorage, session, shell } from "electron";
import { PUSH_CHANNELS } from "../../shared/bridge-names.js";
import { Host } from "../core/host.js";
import { EncryptedKeyVault, MemoryKeyVault, type KeyVault } from "../core/key-vault.js";
import { rendererBuildDir, userDataDir } from "../core/paths.js";
import { APP_ORIGIN, isAppUrl, registerIpc, senderCheck } from "./ipc.js";
import { CSP, hardenContents, restrictPermissions } from "./security.js";
import { ElectronRecordStore, ElectronSettingsStore } from "./stores.js";

const here = path.dirname(fileURLToPath(import.meta.url));
const appRoot = path.resolve(here, "../..");
const rendererDir = rendererBuildDir(appRoot);
const log = (m: string) => process.stderr.write(`headwater: ${m}\n`);

app.setName("headwater");
app.setPath("userData", userDataDir());
protocol.registerSchemesAsPrivileged([{ scheme: "app", privileges: { standard: true, secure: true } }]);

function keyVault(): KeyVault {
  if (safeStorage.isEncryptionAvailable()) return new EncryptedKeyVault(safeStorage, new ElectronRecordStore());
  // No OS keychain reachable: keep keys for this session only rather than store them readable.
  log("safeStorage is not available: API keys are kept in memory for this session only");
  return new MemoryKeyVault();
}

/** Serves dist/renderer on app://dashboard/ with the CSP; nothing outside it. */
function serveRenderer() {
  protocol.handle("app", async (request) => {
    const url = new URL(request.url);
    // (A custom scheme has an opaque origin in WHATWG URLs: compare scheme and host instead.)
    if (!isAppUrl(url)) return new Response("not found", { status: 404 });
    let file = path.resolve(rendererDir, `.${decodeURIComponent(url.pathname)}`);
    if (!file.startsWith(rendererDir + path.sep)) return new Response("not found", { status: 404 });
    if (!fs.existsSync(file) || !fs.statSync(file).isFile()) {
      if (path.extname(file)) return new Response("not found", { status: 404 });
      file = path.join(rendererDir, "index.html");
    }
    const res = await net.fetch(pathToFileURL(file).href);
    const headers = new Headers(res.headers);
    headers.set("Content-Security-Policy", CSP);
    headers.set("X-Content-Type-Options", "nosniff");
    return new Response(res.body, { status: res.status, headers });
  });
}

async function main() {
  await app.whenReady();
  if (!fs.existsSync(path.join(rendererDir, "index.html"))) {
    log(`the dashboard is not built (${rendererDir}): run \`npm start\`, which builds it`);
    app.exit(1);
    return;
  }
  const version = (JSON.parse(fs.readFileSync(path.join(appRoot, "package.json"), "utf8")) as { version: string }).version;
  const envRemote =
    process.env.HEADWATER_API_URL && process.env.HEADWATER_API_KEY
      ? { baseUrl: process.env.HEADWATER_API_URL, apiKey: process.env.HEADWATER_API_KEY }
      : undefined;
  const host = new Host({
    mode: "electron",
    version,
    appRoot,
    userDataDir: app.getPath("userData"),
    settings: new ElectronSettingsStore(),
    vault: keyVault(),
    env: envRemote,
    log: (m) => {
      if (process.env.HEADWATER_LOG_LEVEL === "debug" || !m.startsWith("[local server]")) log(m);
    },
  });

  serveRenderer();
  restrictPermissions(session.defaultSession);
  app.on("web-contents-created", (_e, contents) => hardenContents(contents, (url) => void shell.openExternal(url)));

  const win = new BrowserWindow({
    width: 1360,
    height: 860,
    show: false,
    title: "Headwater",
    webPreferences: {
      preload: path.join(here, "preload.cjs"),
      contextIsolation: true,
      sandbox: true,
      nodeIntegration: false,
      webSecurity: true,
      spellcheck: false,
    },
  });
  const contentsId = win.webContents.id;
  const unregister = registerIpc(ipcMain, host, senderCheck(() => (win.isDestroyed() ? undefined : contentsId)));
  const send = (channel: string, payload: unknown) => {
    if (!win.isDestroyed()) win.webContents.send(channel, payload);
  };
  host.subscribe({
    streamBatch: (b) => send(PUSH_CHANNELS.streamBatch, b),
    runBatch: (b) => send(PUSH_CHANNELS.runBatch, b),
    streamState: (s) => send(PUSH_CHANNELS.streamState, s),
    profilesChanged: (p) => send(PUSH_CHANNELS.profilesChanged, p),
  });
  host.start();
  // A reload starts the renderer from scratch: the old page's live feeds have no reader left.
  let loaded = false;
  win.webContents.on("did-finish-load", () => {
    if (loaded) host.closeAllWatches();
    loaded = true;
  });
  win.webContents.on("render-process-gone", () => host.closeAllWatches());
  win.once("ready-to-show", () => win.show());
  await win.loadURL(`${APP_ORIGIN}/index.html`);
  log("dashboard window open");

  let quitting = false;
  app.on("window-all-closed", () => app.quit());
  app.on("before-quit", (event) => {
    if (quitting) return;
    quitting = true;
    event.preventDefault();
    unregister();
    host.stop().finally(() => app.exit(0));
  });
}

main().catch((err: unknown) => {
  log(`cannot start: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
  app.exit(1);
});
