/**
 * Preload (sandboxed, context-isolated): exposes `window.headwater`, one function per bridge
 * operation, each an `ipcRenderer.invoke` on its own channel, and the four push listeners.
 * Nothing else of Electron or IPC reaches the page.
 */
import { contextBridge, ipcRenderer, type IpcRendererEvent } from "electron";
import { BRIDGE_METHOD_NAMES, PUSH_CHANNELS } from "../../shared/bridge-names.js";

const listen = (channel: string) => (cb: (payload: unknown) => void) => {
  const listener = (_event: IpcRendererEvent, payload: unknown) => cb(payload);
  ipcRenderer.on(channel, listener);
  return () => void ipcRenderer.removeListener(channel, listener);
};

const api: Record<string, unknown> = {
  onStreamBatch: listen(PUSH_CHANNELS.streamBatch),
  onRunBatch: listen(PUSH_CHANNELS.runBatch),
  onStreamState: listen(PUSH_CHANNELS.streamState),
  onProfilesChanged: listen(PUSH_CHANNELS.profilesChanged),
};
for (const method of BRIDGE_METHOD_NAMES) {
  api[method] = (...args: unknown[]) => ipcRenderer.invoke(`headwater:${method}`, ...args);
}

contextBridge.exposeInMainWorld("headwater", api);
