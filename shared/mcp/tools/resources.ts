/**
 * Tools over the user's resources: who they are, their components and sources (workflows are
 * workflows.ts's).
 * Each is one REST call (or a few: a name is resolved through the user's own list, and an update
 * reads the source first because REST's PUT takes the whole of it).
 */
import { z } from "zod";
import { encodeCursor } from "../../ids.js";
import type { Client } from "../../client/index.js";
import type { Component, PropDescriptor, Source } from "../../resources/index.js";
import { MASK, redactConfiguredProps } from "../../secrets.js";
import { endpointOfSource, resolveSource } from "../emitters.js";
import { McpRefusal } from "../results.js";
import { ComponentOut, PageOut, SourceOut, UserOut } from "../schemas.js";
import { CHANGE, CREATE, DESTROY, READ, tool } from "./define.js";

/** `limit` and `cursor` of every list tool: small pages by default. */
export const Paging = {
  limit: z.number().int().min(1).max(100).default(20).describe("items per page, 1 to 100 (default 20)"),
  cursor: z.string().min(1).max(200).optional().describe("`next_cursor` of the previous page"),
};

/** The next page's cursor of a REST page: only when this page was full. */
export function nextCursor(page: { page_info: { end_cursor: string | null }; data: unknown[] }, limit: number): string | null {
  return page.data.length >= limit ? page.page_info.end_cursor : null;
}

const byId = (item: unknown) => encodeCursor((item as { id: string }).id);

/**
 * A source as a model sees it: with its endpoint URL, when it has one, and its secret props
 * masked by the one rule every client follows (shared/secrets.ts: `$auth` values, props declared
 * `secret` when the component's props are known, credential-like names); connected accounts show
 * as their `{authProvisionId}` reference.
 */
export const shownSource = (s: Source, props?: readonly PropDescriptor[]) => {
  const endpoint = endpointOfSource(s);
  const shown = { ...s, configured_props: redactConfiguredProps(s.configured_props, props) };
  return endpoint ? { ...shown, endpoint_url: endpoint } : shown;
};

/** A source with the `secret` flags of its component's props (one more call: single sources only). */
async function shownWithProps(client: Client, s: Source) {
  const props = await client.getComponent(s.component_id).then(
    (c) => c.configurable_props,
    () => undefined, // the name rules still apply
  );
  return shownSource(s, props);
}

/** Values sent back as shown (the mask) keep what they were: a model never sees them to resend. */
function unmasked(given: Record<string, unknown>, current: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(given).map(([k, v]) => [k, v === MASK && k in current ? current[k] : v]));
}

/** A component in a list: without its code (get_component has it). */
const listedComponent = ({ code: _code, ...c }: Component) => c;

export const whoami = tool({
  name: "whoami",
  title: "Who am I",
  description:
    "The Headwater user this connection acts as (id, username, admin or not) and today's quota use: invocations and compute milliseconds, used and allowed. Use it first to check the connection, or when a call was refused with quota_exceeded or rate_limited.",
  input: {},
  output: { user: UserOut },
  annotations: READ,
  run: async (_args, { deps }) => {
    // The key presented is in REST's answer: never hand it to the model.
    const { api_key: _key, quota_overrides: _overrides, ...user } = await deps.client.getMe();
    return { user };
  },
});

export const listComponents = tool({
  name: "list_components",
  title: "List my components",
  description:
    "The components the user saved (newest first), without their code: key, name, version, description and configurable props. Use it to find a component to deploy with create_source (component_id or component_key); get_component shows one with its code.",
  input: { ...Paging },
  output: { components: z.array(ComponentOut), ...PageOut },
  annotations: READ,
  list: { listKey: "components", cursorAfter: byId },
  run: async ({ limit, cursor }, { deps }) => {
    const page = await deps.client.listMyComponents({ limit, after: cursor });
    return { components: page.data.map(listedComponent), next_cursor: nextCursor(page, limit), total_count: page.page_info.total_count };
  },
});

export const getComponent = tool({
  name: "get_component",
  title: "Get a component",
  description:
    "One component by id (`sc_...`) or key (the user's newest of that key, else the registry's), with its code and configurable props: what create_source's configured_props must give.",
  input: { component: z.string().min(1).max(200).describe("component id (sc_...) or key") },
  output: { component: ComponentOut },
  annotations: READ,
  run: async ({ component }, { deps }) => ({ component: await deps.client.getComponent(component) }),
});

export const listSources = tool({
  name: "list_sources",
  title: "List my sources",
  description:
    "The user's deployed sources (newest first): id, name, active, configured props (connected accounts appear as {authProvisionId} references, never credentials) and endpoint_url for HTTP sources. Use it to find a source's id for the event tools.",
  input: { ...Paging },
  output: { sources: z.array(SourceOut), ...PageOut },
  annotations: READ,
  list: { listKey: "sources", cursorAfter: byId },
  run: async ({ limit, cursor }, { deps }) => {
    const page = await deps.client.listMySources({ limit, after: cursor });
    return { sources: page.data.map((s) => shownSource(s)), next_cursor: nextCursor(page, limit), total_count: page.page_info.total_count };
  },
});

export const getSource = tool({
  name: "get_source",
  title: "Get a source",
  description: "One source by id (`dc_...`) or name: its component, configured props, whether it is active, and its endpoint_url for HTTP sources.",
  input: { id: z.string().min(1).max(200).describe("source id (dc_...) or name") },
  output: { source: SourceOut },
  annotations: READ,
  run: async ({ id }, { deps }) => ({ source: await shownWithProps(deps.client, await resolveSource(deps.client, id)) }),
});

export const createSource = tool({
  name: "create_source",
  title: "Deploy a source",
  description:
    "Deploys a new source from a component: the code itself (component_code: a Headwater/Pipedream source component, `export default { props, run() { this.$emit(...) } }`), a saved component (component_id) or a key (component_key: the user's, the registry's, or @pipedream/<app>'s). configured_props gives its props (a timer as {intervalSeconds}, an app prop as {authProvisionId: \"apn_...\"}). Answers the source, with endpoint_url when it has an HTTP endpoint.",
  input: {
    component_code: z.string().min(1).max(512 * 1024).optional().describe("the component's source code"),
    component_id: z.string().min(1).max(200).optional().describe("a saved component's id (sc_...)"),
    component_key: z.string().min(1).max(200).optional().describe("a component key, e.g. http or @pipedream/rss's key"),
    name: z.string().min(1).max(200).optional().describe("the source's name (default: from the component)"),
    configured_props: z.record(z.string(), z.unknown()).optional().describe("prop values by prop name"),
  },
  output: { source: SourceOut },
  annotations: CREATE,
  run: async (a, { deps }) => {
    const given = [a.component_code, a.component_id, a.component_key].filter((v) => v !== undefined).length;
    if (given !== 1) throw new McpRefusal("bad_request", "give exactly one of component_code, component_id or component_key");
    const source = await deps.client.createSource({
      component_code: a.component_code,
      component_id: a.component_id,
      key: a.component_key,
      name: a.name,
      configured_props: a.configured_props,
    });
    return { source: await shownWithProps(deps.client, source) };
  },
});

export const updateSource = tool({
  name: "update_source",
  title: "Change a source",
  description:
    "Renames a source, turns it on or off (active: false stops its timers and endpoint runs, keeping its events), or replaces its configured_props (all of them: read them with get_source first; a secret shown as •••• keeps its value when sent back as ••••). Fields left out keep their value.",
  input: {
    id: z.string().min(1).max(200).describe("source id (dc_...) or name"),
    name: z.string().min(1).max(200).optional(),
    active: z.boolean().optional(),
    configured_props: z.record(z.string(), z.unknown()).optional().describe("the new prop values, replacing all"),
  },
  output: { source: SourceOut },
  annotations: CHANGE,
  run: async (a, { deps }) => {
    const current = await resolveSource(deps.client, a.id);
    const source = await deps.client.updateSource(current.id, {
      component_id: current.component_id,
      name: a.name ?? current.name,
      active: a.active ?? current.active,
      configured_props: a.configured_props ? unmasked(a.configured_props, current.configured_props) : current.configured_props,
    });
    return { source: await shownWithProps(deps.client, source) };
  },
});

export const deleteSource = tool({
  name: "delete_source",
  title: "Delete a source",
  description:
    "Deletes a source for good, with its events, its subscriptions and its state; its endpoint stops answering. Cannot be undone: prefer update_source with active: false to pause one.",
  input: { id: z.string().min(1).max(200).describe("source id (dc_...) or name") },
  output: { deleted: z.literal(true), id: z.string() },
  annotations: DESTROY,
  run: async ({ id }, { deps }) => {
    const source = await resolveSource(deps.client, id);
    await deps.client.deleteSource(source.id);
    return { deleted: true as const, id: source.id };
  },
});
