import type { IpcMainInvokeEvent } from "electron";
import { describe, expect, it } from "vitest";
import { BRIDGE_METHOD_NAMES } from "../../shared/bridge-names.js";
import { registerIpc, senderCheck } from "./ipc.js";
import { hardenContents, restrictPermissions } from "./security.js";

type Handler = (event: IpcMainInvokeEvent, ...args: unknown[]) => Promise<unknown>;

function fakeIpc() {
  const handlers = new Map<string, Handler>();
  return {
    handlers,
    handle: (channel: string, fn: Handler) => void handlers.set(channel, fn),
    removeHandler: (channel: string) => void handlers.delete(channel),
  };
}

const event = (opts: { senderId?: number; url?: string; parent?: object | null } = {}) =>
  ({
    sender: { id: opts.senderId ?? 7 },
    senderFrame: { url: opts.url ?? "app://dashboard/index.html", parent: opts.parent ?? null },
  }) as unknown as IpcMainInvokeEvent;

describe("registerIpc", () => {
  it("registers exactly one channel per bridge operation and no generic one", () => {
    const ipc = fakeIpc();
    const unregister = registerIpc(ipc as never, { call: async () => ({ ok: true, value: 1 }) }, () => true);
    expect([...ipc.handlers.keys()].sort()).toEqual(BRIDGE_METHOD_NAMES.map((m) => `headwater:${m}`).sort());
    unregister();
    expect(ipc.handlers.size).toBe(0);
  });

  it("passes trusted calls with their arguments to the host and refuses untrusted senders", async () => {
    const ipc = fakeIpc();
    const calls: Array<[string, unknown]> = [];
    const host = {
      call: async (m: string, a: unknown) => {
        calls.push([m, a]);
        return { ok: true as const, value: "v" };
      },
    };
    registerIpc(ipc as never, host, senderCheck(() => 7));
    const h = ipc.handlers.get("headwater:getSource")!;
    expect(await h(event(), "dc_a")).toEqual({ ok: true, value: "v" });
    expect(calls).toEqual([["getSource", ["dc_a"]]]);

    for (const bad of [
      event({ senderId: 8 }),
      event({ url: "https://evil.example/" }),
      event({ url: "file:///etc/passwd" }),
      event({ parent: {} }),
      event({ url: "app://dashboardx/index.html" }),
    ]) {
      expect(await h(bad, "dc_a")).toMatchObject({ ok: false, error: { status: 403, code: "forbidden" } });
    }
    expect(calls).toHaveLength(1);
  });
});

describe("window hardening", () => {
  function fakeContents() {
    const listeners = new Map<string, (e: { preventDefault(): void }, url: string) => void>();
    let openHandler: ((d: { url: string }) => { action: string }) | undefined;
    return {
      on: (name: string, fn: never) => void listeners.set(name, fn),
      setWindowOpenHandler: (fn: never) => void (openHandler = fn),
      navigate(url: string) {
        let prevented = false;
        listeners.get("will-navigate")!({ preventDefault: () => (prevented = true) }, url);
        return prevented;
      },
      open: (url: string) => openHandler!({ url }),
    };
  }

  it("blocks navigation away from the app and new windows; http(s) links go to the browser", () => {
    const c = fakeContents();
    const opened: string[] = [];
    hardenContents(c as never, (u) => opened.push(u));
    expect(c.navigate("app://dashboard/sources")).toBe(false);
    expect(c.navigate("https://example.com/")).toBe(true);
    expect(c.navigate("file:///etc/passwd")).toBe(true);
    expect(c.open("https://docs.example/")).toEqual({ action: "deny" });
    expect(c.open("javascript:alert(1)")).toEqual({ action: "deny" });
    expect(opened).toEqual(["https://example.com/", "https://docs.example/"]);
  });

  it("grants no permission but clipboard writes", () => {
    let request: ((wc: unknown, p: string, cb: (ok: boolean) => void) => void) | undefined;
    let check: ((wc: unknown, p: string) => boolean) | undefined;
    restrictPermissions({ setPermissionRequestHandler: (f: never) => void (request = f), setPermissionCheckHandler: (f: never) => void (check = f) } as never);
    const answers: boolean[] = [];
    for (const p of ["media", "geolocation", "notifications", "clipboard-sanitized-write"]) request!(null, p, (ok) => answers.push(ok));
    expect(answers).toEqual([false, false, false, true]);
    expect(check!(null, "openExternal")).toBe(false);
  });
});
