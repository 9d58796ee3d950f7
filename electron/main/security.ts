/**
 * Window hardening: no navigation away from the app, no new windows (http(s) links open in the
 * user's browser instead), no webviews, no permissions beyond writing to the clipboard, and the
 * Content-Security-Policy on everything the app protocol serves.
 */
import type { Session, WebContents } from "electron";
import { APP_ORIGIN } from "./ipc.js";

export const CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "font-src 'self' data:",
  "connect-src 'none'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join("; ");

/** Opens a link in the user's browser when it is plain http(s). */
export type OpenExternal = (url: string) => void;

export function isExternalLink(url: string): boolean {
  try {
    const u = new URL(url);
    return u.protocol === "https:" || u.protocol === "http:";
  } catch {
    return false;
  }
}

export function hardenContents(contents: Pick<WebContents, "on" | "setWindowOpenHandler">, openExternal: OpenExternal): void {
  contents.on("will-navigate", (event, url) => {
    if (!url.startsWith(`${APP_ORIGIN}/`)) {
      event.preventDefault();
      if (isExternalLink(url)) openExternal(url);
    }
  });
  contents.on("will-redirect", (event, url) => {
    if (!url.startsWith(`${APP_ORIGIN}/`)) event.preventDefault();
  });
  contents.on("will-attach-webview", (event) => event.preventDefault());
  contents.setWindowOpenHandler(({ url }) => {
    if (isExternalLink(url)) openExternal(url);
    return { action: "deny" };
  });
}

export function restrictPermissions(session: Pick<Session, "setPermissionRequestHandler" | "setPermissionCheckHandler">): void {
  const allowed = new Set(["clipboard-sanitized-write"]);
  session.setPermissionRequestHandler((_wc, permission, callback) => callback(allowed.has(permission)));
  session.setPermissionCheckHandler((_wc, permission) => allowed.has(permission));
}
