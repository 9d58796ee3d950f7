/** Shared bits of the events API tests: a source to own events, and direct appends. */
import type { TestServer, TestUser } from "../support/server.js";

/** A minimal HTTP source; its run emits the request body. */
export const ECHO_SOURCE = `
export default {
  key: "echo_KEYHERE",
  name: "Echo",
  version: "0.0.1",
  props: { http: "$.interface.http" },
  async run(event) { this.$emit(event.body, { summary: "echo" }); },
};
`;

let n = 0;
export async function newSource(u: TestUser, name?: string): Promise<string> {
  const code = ECHO_SOURCE.replace("KEYHERE", `${Date.now()}_${++n}_${Math.random().toString(36).slice(2, 8)}`);
  const source = await u.client.createSource({ component_code: code, name: name ?? `echo-${n}` });
  return source.id;
}

/** Appends events straight into the event store, as a running source's $emit does. */
export async function emitDirect(
  srv: TestServer,
  u: TestUser,
  emitterId: string,
  events: unknown[],
  channel = "",
): Promise<string[]> {
  const stored = await srv.server.services.events.store.append(
    events.map((event) => ({ emitterId, ownerId: u.user.id, channel, event })),
  );
  return stored.map((s) => s.id);
}
