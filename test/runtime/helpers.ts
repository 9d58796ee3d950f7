/** Shared helpers for runtime tests: a throwaway data dir and a config pointing at it. */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { loadConfig, type Config } from "../../server/config.js";

export function tempDataDir(): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), "hw-runtime-"));
}

export function testConfig(dataDir: string, env: Record<string, string> = {}): Config {
  return loadConfig({ HEADWATER_DATA_DIR: dataDir, HEADWATER_PORT: "0", ...env });
}

export function fixture(name: string): string {
  return fs.readFileSync(path.join(import.meta.dirname, "fixtures", name), "utf8");
}

import type { Client } from "../../shared/client/index.js";
import type { EventSummary } from "../../shared/resources/index.js";

/** A source's events on a channel, oldest first, expanded. */
export async function channelEvents(client: Client, sourceId: string, channel = ""): Promise<EventSummary[]> {
  const page = await client.listSourceEvents(sourceId, { event_name: channel, expand: "event", limit: 100 });
  return [...page.data].reverse();
}

/**
 * Polls until `count` events are on the channel (the run is asynchronous to the request that
 * triggered it). Fails with what it saw when they do not come within `withinMs`.
 */
export async function waitForEvents(client: Client, sourceId: string, channel: string, count: number, withinMs = 20_000): Promise<EventSummary[]> {
  const deadline = Date.now() + withinMs;
  let seen: EventSummary[] = [];
  while (Date.now() < deadline) {
    seen = await channelEvents(client, sourceId, channel);
    if (seen.length >= count) return seen;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`expected ${count} events on "${channel}" of ${sourceId}, saw ${seen.length}: ${JSON.stringify(seen.map((e) => e.event)).slice(0, 2000)}`);
}

/** Sends a request to a source's endpoint. */
export async function hit(url: string, init: { method?: string; body?: unknown; headers?: Record<string, string>; path?: string } = {}) {
  const body = init.body === undefined ? undefined : typeof init.body === "string" ? init.body : JSON.stringify(init.body);
  const headers = { ...(typeof init.body === "object" ? { "content-type": "application/json" } : {}), ...init.headers };
  const res = await fetch(url + (init.path ?? ""), { method: init.method ?? (body === undefined ? "GET" : "POST"), body, headers });
  const text = await res.text();
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: res.status, headers: res.headers, text, json: json as Record<string, unknown> };
}
