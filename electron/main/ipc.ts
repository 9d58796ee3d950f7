/**
 * The IPC handlers: one channel per bridge method (`headwater:<method>`), no generic channel.
 * Each handler checks that the call comes from our own page in our own window before passing
 * the arguments to the host, which validates them. Takes `ipcMain` as a parameter so that it is
 * tested without Electron.
 */
import type { IpcMain, IpcMainInvokeEvent } from "electron";
import { BRIDGE_METHOD_NAMES } from "../../shared/bridge-names.js";
import type { BridgeResult } from "../../shared/bridge.js";
import type { Host } from "../core/host.js";

export const ipcChannel = (method: string) => `headwater:${method}`;

/** True when the sender is a frame we trust: the top frame of our window, showing our app. */
export type SenderCheck = (event: IpcMainInvokeEvent) => boolean;

export function registerIpc(ipcMain: Pick<IpcMain, "handle" | "removeHandler">, host: Pick<Host, "call">, trusted: SenderCheck): () => void {
  for (const method of BRIDGE_METHOD_NAMES) {
    ipcMain.handle(ipcChannel(method), async (event, ...args: unknown[]): Promise<BridgeResult<unknown>> => {
      if (!trusted(event)) {
        return { ok: false, error: { status: 403, code: "forbidden", message: "This page may not use the Headwater bridge." } };
      }
      return host.call(method, args);
    });
  }
  return () => {
    for (const method of BRIDGE_METHOD_NAMES) ipcMain.removeHandler(ipcChannel(method));
  };
}

/** The app's own origin: the renderer is served from `app://dashboard/`. */
export const APP_ORIGIN = "app://dashboard";

/** True for a URL of the app itself (scheme and host: custom schemes have no WHATWG origin). */
export function isAppUrl(url: URL): boolean {
  return url.protocol === "app:" && url.host === "dashboard";
}

/**
 * Builds the sender check: the event must come from `webContentsId` (our window), from its main
 * frame, and that frame must show a page of our origin.
 */
export function senderCheck(getWebContentsId: () => number | undefined): SenderCheck {
  return (event) => {
    const frame = event.senderFrame;
    if (!frame || event.sender.id !== getWebContentsId()) return false;
    if (frame.parent !== null) return false;
    try {
      return isAppUrl(new URL(frame.url));
    } catch {
      return false;
    }
  };
}
