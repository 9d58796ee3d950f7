/**
 * A stand-in for the `electron` module, for running the bundled main process under plain Node
 * in tests (the Electron binary cannot be downloaded everywhere). It records what main does:
 * windows and their options, IPC handlers, the app:// protocol handler, sent messages. State is
 * on `globalThis.__fakeElectron`.
 */
import fs from "node:fs";
import { EventEmitter } from "node:events";

type Handler = (...args: unknown[]) => unknown;

class FakeWebContents extends EventEmitter {
  static nextId = 1;
  readonly id = FakeWebContents.nextId++;
  readonly sent: Array<{ channel: string; payload: unknown }> = [];
  url = "";
  openHandler: Handler | undefined;
  send(channel: string, payload: unknown) {
    this.sent.push({ channel, payload });
  }
  setWindowOpenHandler(fn: Handler) {
    this.openHandler = fn;
  }
}

class FakeBrowserWindow extends EventEmitter {
  readonly webContents = new FakeWebContents();
  destroyed = false;
  constructor(readonly options: Record<string, unknown>) {
    super();
    state.windows.push(this);
    state.appEmitter.emit("web-contents-created", {}, this.webContents);
  }
  isDestroyed() {
    return this.destroyed;
  }
  async loadURL(url: string) {
    this.webContents.url = url;
    this.emit("ready-to-show");
    this.webContents.emit("did-finish-load");
  }
  show() {}
}

const appEmitter = new EventEmitter();
const state = {
  appEmitter,
  windows: [] as FakeBrowserWindow[],
  ipcHandlers: new Map<string, Handler>(),
  protocolHandlers: new Map<string, (req: Request) => Promise<Response>>(),
  privilegedSchemes: [] as unknown[],
  paths: new Map<string, string>(),
  exitCode: undefined as number | undefined,
  permissionRequest: undefined as Handler | undefined,
  opened: [] as string[],
  exposed: new Map<string, Record<string, unknown>>(),
  invoked: [] as Array<{ channel: string; args: unknown[] }>,
  rendererEmitter: new EventEmitter(),
};
(globalThis as { __fakeElectron?: typeof state }).__fakeElectron = state;

export const app = {
  setName() {},
  getName: () => "headwater",
  getVersion: () => "0.0.0-test",
  setPath: (name: string, p: string) => void state.paths.set(name, p),
  getPath: (name: string) => state.paths.get(name) ?? "/tmp",
  whenReady: () => Promise.resolve(),
  on: (event: string, fn: Handler) => appEmitter.on(event, fn),
  quit: () => {
    const event = { defaultPrevented: false, preventDefault() { this.defaultPrevented = true; } };
    appEmitter.emit("before-quit", event);
  },
  exit: (code: number) => {
    state.exitCode = code;
  },
};

export const BrowserWindow = FakeBrowserWindow;

export const ipcMain = {
  handle: (channel: string, fn: Handler) => void state.ipcHandlers.set(channel, fn),
  removeHandler: (channel: string) => void state.ipcHandlers.delete(channel),
  on: () => undefined,
};

export const protocol = {
  registerSchemesAsPrivileged: (schemes: unknown[]) => void state.privilegedSchemes.push(...schemes),
  handle: (scheme: string, fn: (req: Request) => Promise<Response>) => void state.protocolHandlers.set(scheme, fn),
};

export const net = {
  /** Only file:// is needed: the renderer build. */
  fetch: async (url: string) => {
    const file = new URL(url);
    const body = fs.readFileSync(file);
    const type = file.pathname.endsWith(".html") ? "text/html" : file.pathname.endsWith(".js") ? "text/javascript" : "application/octet-stream";
    return new Response(body, { status: 200, headers: { "content-type": type } });
  },
};

/** A reversible "encryption" so tests can tell ciphertext from the key. */
export const safeStorage = {
  isEncryptionAvailable: () => true,
  encryptString: (s: string) => Buffer.from(`enc:${Buffer.from(s).toString("hex")}`),
  decryptString: (b: Buffer) => Buffer.from(b.toString().slice(4), "hex").toString(),
};

export const session = {
  defaultSession: {
    setPermissionRequestHandler: (fn: Handler) => void (state.permissionRequest = fn),
    setPermissionCheckHandler: () => undefined,
  },
};

export const shell = {
  openExternal: async (url: string) => void state.opened.push(url),
  openPath: async () => "",
};

// Preload side.
export const contextBridge = {
  exposeInMainWorld: (name: string, api: Record<string, unknown>) => void state.exposed.set(name, api),
};

export const ipcRenderer = {
  invoke: (channel: string, ...args: unknown[]) => {
    state.invoked.push({ channel, args });
    return Promise.resolve({ ok: true, value: channel });
  },
  on: (channel: string, fn: Handler) => state.rendererEmitter.on(channel, fn),
  removeListener: (channel: string, fn: Handler) => state.rendererEmitter.removeListener(channel, fn),
};

export default { app, BrowserWindow, ipcMain, protocol, net, safeStorage, session, shell, contextBridge, ipcRenderer };
