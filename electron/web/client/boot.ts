/**
 * Runs before the renderer in web mode (a classic script, so before any module script): defines
 * `window.headwater` over HTTP. Without a token every call fails with words saying how to open
 * the dashboard, and the renderer shows that.
 */
import { BRIDGE_METHOD_NAMES as BRIDGE_METHODS } from "../../../shared/bridge-names.js";
import type { HeadwaterBridge } from "../../../shared/bridge.js";
import { createWebBridge, pageToken } from "./index.js";

function missingTokenBridge(): HeadwaterBridge {
  const error = {
    status: 401,
    code: "missing_token",
    message: "This page was opened without its access token. Open the full link printed by `npm run web` (dashboard at ...).",
  };
  const bridge: Record<string, unknown> = {
    onStreamBatch: () => () => undefined,
    onRunBatch: () => () => undefined,
    onStreamState: () => () => undefined,
    onProfilesChanged: () => () => undefined,
  };
  for (const m of BRIDGE_METHODS) bridge[m] = () => Promise.resolve({ ok: false, error });
  return bridge as unknown as HeadwaterBridge;
}

if (!window.headwater) {
  const token = pageToken();
  Object.defineProperty(window, "headwater", {
    value: token ? createWebBridge({ token }) : missingTokenBridge(),
    writable: false,
    configurable: false,
  });
}
