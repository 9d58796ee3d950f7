/**
 * Test helpers: render a renderer tree against a fake bridge with a fresh query client, give the
 * virtualised table a real-looking viewport (happy-dom has no layout), and clean up after each test.
 */
import { QueryClient } from "@tanstack/react-query";
import { cleanup, render } from "@testing-library/react";
import type { ReactNode } from "react";
import { afterEach, beforeEach, vi } from "vitest";
import { Providers } from "../app/Providers.js";
import { setBridgeForTests } from "../state/bridge.js";
import { useLiveFeed } from "../state/liveFeed.js";
import type { FakeBridge } from "./fakeBridge.js";

beforeEach(() => {
  // Give every element a 1000x600 box (getBoundingClientRect and client/offset sizes) so the virtualizer renders rows.
  vi.spyOn(HTMLElement.prototype, "getBoundingClientRect").mockImplementation(
    () =>
      ({
        x: 0,
        y: 0,
        top: 0,
        left: 0,
        bottom: 600,
        right: 1000,
        width: 1000,
        height: 600,
        toJSON: () => ({}),
      }) as DOMRect,
  );
  for (const [prop, value] of [
    ["offsetHeight", 600],
    ["offsetWidth", 1000],
    ["clientHeight", 600],
    ["clientWidth", 1000],
  ] as const) {
    Object.defineProperty(HTMLElement.prototype, prop, { configurable: true, get: () => value });
  }
});

afterEach(() => {
  cleanup();
  setBridgeForTests(null);
  useLiveFeed.getState().reset(null);
  vi.restoreAllMocks();
  window.location.hash = "";
});

/** Renders `ui` inside a query client provider; pass a function to render a tree that brings its own. */
export function renderWith(bridge: FakeBridge, ui: ReactNode | ((client: QueryClient) => ReactNode)) {
  setBridgeForTests(bridge);
  const client = new QueryClient({
    defaultOptions: { queries: { retry: false }, mutations: { retry: false } },
  });
  return {
    client,
    ...render(typeof ui === "function" ? ui(client) : <Providers client={client}>{ui}</Providers>),
  };
}
