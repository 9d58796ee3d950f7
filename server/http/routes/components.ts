/** Components (spec §4 Components, decisions.md Components). */
import type { FastifyPluginAsync } from "fastify";
import { z } from "zod";
import {
  Component,
  ComponentSearch,
  ComponentSearchQuery,
  CreateComponentBody,
  Page,
  PageQuery,
  PropOptions,
  PropOptionsBody,
} from "../../../shared/resources/index.js";
import type { ComponentService } from "../../components/service.js";
import { pageBody, pageRequest } from "../paging.js";
import { route } from "../route.js";
import { Data, IdParams } from "../schemas.js";

const KeyParams = z.object({ key: z.string().min(1).max(200) });
const PropParams = z.object({ id: z.string().min(1).max(200), prop: z.string().min(1).max(200) });

export const componentRoutes: FastifyPluginAsync<{ components: ComponentService }> = async (
  app,
  { components },
) => {
  const tags = ["components"];

  route(
    app,
    {
      method: "POST",
      url: "/components",
      summary: "Save a component from component_code or component_url (code wins; the URL is then metadata)",
      tags,
      body: CreateComponentBody,
      response: Data(Component),
    },
    async ({ requester, body }) => ({ data: await components.create(requester, body) }),
  );

  route(
    app,
    {
      method: "GET",
      url: "/components/search",
      summary:
        "Search the components the server knows by key and name (prefix, contains, near spellings); a query naming an app fetches its vendor package @pipedream/<app> and lists its sources (extension)",
      tags,
      query: ComponentSearchQuery,
      response: ComponentSearch,
    },
    async ({ requester, query }) => components.search(requester, query.q ?? "", query.limit ?? 50),
  );

  // Declared before `/components/:id` so that "registry" is never read as a key.
  route(
    app,
    {
      method: "GET",
      url: "/components/registry/:key",
      summary:
        "A registry component by key: published, built-in, or found in the vendor's npm package @pipedream/<app>",
      tags,
      params: KeyParams,
      response: Data(Component),
    },
    async ({ requester, params }) => ({ data: await components.getPublished(params.key, requester) }),
  );

  route(
    app,
    {
      method: "GET",
      url: "/components/:id",
      summary: "A component of the account, by id (sc_…) or key (newest)",
      tags,
      params: IdParams,
      response: Data(Component),
    },
    async ({ user, params }) => ({ data: await components.get(user.id, params.id) }),
  );

  route(
    app,
    {
      method: "POST",
      errors: [409],
      url: "/components/:id/publish",
      summary: "Publish a component to the registry (extension); 409 when another user published its key",
      tags,
      params: IdParams,
      response: Data(Component),
    },
    async ({ requester, params }) => ({ data: await components.publish(requester, params.id) }),
  );

  route(
    app,
    {
      method: "POST",
      errors: [429],
      url: "/components/:id/props/:prop/options",
      summary:
        "A prop's choices from its options(), run in the sandbox with the props configured so far (extension)",
      tags,
      params: PropParams,
      body: PropOptionsBody,
      response: PropOptions,
    },
    async ({ requester, params, body }) => components.propOptions(requester, params.id, params.prop, body),
  );

  route(
    app,
    {
      method: "GET",
      url: "/users/me/components",
      summary: "The account's components, newest first (extension)",
      tags,
      query: PageQuery,
      response: Page(Component),
    },
    async ({ user, query }) => pageBody(await components.list(user.id, pageRequest(query))),
  );
};
