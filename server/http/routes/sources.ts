/** Sources (spec §4 Sources, decisions.md status codes). */
import type { FastifyPluginAsync } from "fastify";
import {
  CreateSourceBody,
  Page,
  PageQuery,
  Source,
  UpdateSourceBody,
} from "../../../shared/resources/index.js";
import type { SourceService } from "../../sources/service.js";
import { pageBody, pageRequest } from "../paging.js";
import { route } from "../route.js";
import { Data, IdParams } from "../schemas.js";

export const sourceRoutes: FastifyPluginAsync<{ sources: SourceService }> = async (app, { sources }) => {
  const tags = ["sources"];

  route(
    app,
    {
      method: "POST",
      errors: [409],
      url: "/sources",
      summary:
        "Create a source from component_id, component_code, component_url or key (in that order of precedence)",
      tags,
      body: CreateSourceBody,
      response: Data(Source),
    },
    async ({ requester, body }) => ({ data: await sources.create(requester, body) }),
  );

  route(
    app,
    {
      method: "GET",
      url: "/sources/:id",
      summary: "A source of the account (extension)",
      tags,
      params: IdParams,
      response: Data(Source),
    },
    async ({ user, params }) => ({ data: await sources.get(user.id, params.id) }),
  );

  route(
    app,
    {
      method: "PUT",
      errors: [409],
      url: "/sources/:id",
      summary: "Update a source: component, name, configured_props, active (default true)",
      tags,
      params: IdParams,
      body: UpdateSourceBody,
      response: Data(Source),
    },
    async ({ requester, params, body }) => ({ data: await sources.update(requester, params.id, body) }),
  );

  route(
    app,
    {
      method: "DELETE",
      url: "/sources/:id",
      summary: "Delete a source, its events, subscriptions and state",
      tags,
      params: IdParams,
      status: 204,
    },
    async ({ user, params }) => {
      await sources.delete(user.id, params.id);
    },
  );

  route(
    app,
    {
      method: "GET",
      url: "/users/me/sources",
      summary: "The account's sources, newest first",
      tags: ["users", ...tags],
      query: PageQuery,
      response: Page(Source),
    },
    async ({ user, query }) => pageBody(await sources.list(user.id, pageRequest(query))),
  );
};
